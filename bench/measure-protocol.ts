// Protocol v2 stream metrics on the wire, with the same client code for both servers: the
// 5,000-custom-event graph runs on a new thread, started by a `run.start` command, and its events
// are read until the run's root lifecycle ends. Over SSE: `POST /threads/{id}/commands`, then
// `POST /threads/{id}/stream/events`; over WebSocket: `run.start` and `subscription.subscribe`
// sent on the socket at `/threads/{id}/stream/events`. Raw frames rather than the SDK's
// ThreadStream: on Gantry its stream rotation ended subscriptions at the run's terminal event
// before a fast run's events were replayed (docs/benchmarks.md), which would measure the client.
// Every event's payload is checked.
import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { alternate, describeError, type ErrorTally, type Row, type Target } from "./bench-target.js";
import { percentile } from "./stats.js";

export type ProtocolTransport = "sse" | "websocket";

export interface ProtocolCounts {
  customEvents: number;
  streams: number;
}

interface ProtocolEvent {
  method: string;
  params: { namespace: string[]; data: { event?: string; payload?: { i?: number } } };
}

const CHANNELS = ["custom", "lifecycle"];

/** Counts the run's custom events in order; true once the root lifecycle says the run ended. */
function eventCounter(count: number, onFirst: () => void) {
  let received = 0;
  return {
    received: () => received,
    take(event: ProtocolEvent): boolean {
      if (event.method === "lifecycle")
        return event.params.namespace.length === 0 && ["completed", "failed", "interrupted"].includes(event.params.data.event ?? "");
      if (event.method !== "custom") return false;
      if (received === 0) onFirst();
      if (event.params.data.payload?.i !== received) throw new Error(`event ${received} carried ${JSON.stringify(event.params.data)}`);
      received += 1;
      return false;
    },
    check() {
      if (received !== count) throw new Error(`received ${received} of ${count} events`);
    },
  };
}

async function startRun(url: string, threadId: string, count: number): Promise<void> {
  const response = await fetch(`${url}/threads/${threadId}/commands`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "custom", input: { count } } }),
  });
  const answer = (await response.json()) as { type?: string; message?: string };
  if (answer.type !== "success") throw new Error(`run.start: ${response.status} ${JSON.stringify(answer).slice(0, 200)}`);
}

async function readSse(url: string, threadId: string, counter: ReturnType<typeof eventCounter>): Promise<void> {
  const reader = new AbortController();
  const response = await fetch(`${url}/threads/${threadId}/stream/events`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ channels: CHANNELS }),
    signal: reader.signal,
  });
  if (!response.ok || !response.body) throw new Error(`stream/events: ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const data = buffered
          .slice(0, end)
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        buffered = buffered.slice(end + 2);
        if (data && counter.take(JSON.parse(data) as ProtocolEvent)) return;
        end = buffered.indexOf("\n\n");
      }
    }
    throw new Error("the server closed the stream before the run ended");
  } finally {
    reader.abort();
  }
}

/** Over one socket, as the SDK does it: `run.start`, then `subscription.subscribe` once the run is accepted. */
async function runOverWebSocket(url: string, threadId: string, count: number, counter: ReturnType<typeof eventCounter>, opened: () => void): Promise<void> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/threads/${threadId}/stream/events`);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.once("close", (code, reason) => reject(new Error(`socket closed (${code} ${reason})`)));
      socket.on("message", (raw) => {
        try {
          const frame = JSON.parse(String(raw)) as { type: string; id?: number; message?: string } & ProtocolEvent;
          if (frame.type === "error") reject(new Error(`protocol error: ${frame.message}`));
          else if (frame.type === "success" && frame.id === 1)
            socket.send(JSON.stringify({ id: 2, method: "subscription.subscribe", params: { channels: CHANNELS } }));
          else if (frame.type === "event" && counter.take(frame)) resolve();
        } catch (error) {
          reject(error);
        }
      });
      socket.once("open", () => {
        opened();
        socket.send(JSON.stringify({ id: 1, method: "run.start", params: { assistant_id: "custom", input: { count } } }));
      });
    });
  } finally {
    socket.removeAllListeners("close");
    socket.close();
  }
}

const STREAM_DEADLINE_MS = 60_000;

/** One run on a new thread, bounded: a stream that never ends is an error, not a hang. */
function oneStream(url: string, transport: ProtocolTransport, count: number): Promise<{ first: number; perSecond: number }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no end of the run within ${STREAM_DEADLINE_MS / 1000} s`)), STREAM_DEADLINE_MS);
  });
  return Promise.race([measureStream(url, transport, count), deadline]).finally(() => clearTimeout(timer));
}

/** ms from `run.start` to the first custom event, and events/s over the run. */
async function measureStream(url: string, transport: ProtocolTransport, count: number): Promise<{ first: number; perSecond: number }> {
  const threadId = randomUUID();
  let t0 = performance.now();
  let first = Number.NaN;
  const counter = eventCounter(count, () => {
    first = performance.now() - t0;
  });
  if (transport === "sse") {
    t0 = performance.now();
    await startRun(url, threadId, count);
    await readSse(url, threadId, counter);
  } else {
    await runOverWebSocket(url, threadId, count, counter, () => {
      t0 = performance.now();
    });
  }
  counter.check();
  return { first, perSecond: counter.received() / ((performance.now() - t0) / 1000) };
}

export async function protocolStreams(targets: Target[], transport: ProtocolTransport, counts: ProtocolCounts, errors: ErrorTally): Promise<Row[]> {
  const metric = `protocol v2 ${transport === "sse" ? "SSE" : "WebSocket"} stream of ${counts.customEvents} custom events`;
  const firstEvent: Record<string, number[]> = { gantry: [], reference: [] };
  const perSecond: Record<string, number[]> = { gantry: [], reference: [] };
  await alternate(targets, counts.streams, async (target) => {
    try {
      const figures = await oneStream(target.server.url, transport, counts.customEvents);
      firstEvent[target.name]!.push(figures.first);
      perSecond[target.name]!.push(figures.perSecond);
    } catch (error) {
      errors.add(target.name, metric, describeError(error));
    }
  });
  const samples = { gantry: perSecond.gantry!.length, reference: perSecond.reference!.length };
  return [
    {
      metric: `${metric}: time to first event p50`,
      unit: "ms",
      better: "lower",
      gantry: percentile(firstEvent.gantry!, 50),
      reference: percentile(firstEvent.reference!, 50),
      samples,
    },
    {
      metric: `${metric}: events/s p50`,
      unit: "events/s",
      better: "higher",
      gantry: percentile(perSecond.gantry!, 50),
      reference: percentile(perSecond.reference!, 50),
      samples,
    },
  ];
}
