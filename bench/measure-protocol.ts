// Protocol v2 stream metrics through the official SDK's ThreadStream (what useStream and
// RemoteGraph's streamEvents v3 ride on): the 5,000-custom-event graph, started with `run.start`
// and read from a `custom` subscription, over SSE (`POST /threads/{id}/commands` and
// `/stream/events`) and over the WebSocket at `/threads/{id}/stream/events`. Every event's payload
// is checked; wrong ones go to the tally.
import type { Client } from "@langchain/langgraph-sdk";
import WebSocket from "ws";
import { alternate, describeError, type ErrorTally, type Row, type Target } from "./bench-target.js";
import { percentile } from "./stats.js";

export type ProtocolTransport = "sse" | "websocket";

export interface ProtocolCounts {
  customEvents: number;
  streams: number;
}

// Node 20 has no global WebSocket; the `ws` package speaks the same browser-style API to the SDK.
const webSocketFactory = (url: string) => new WebSocket(url) as unknown as globalThis.WebSocket;

/** One run on a new thread: time from `run.start` to the first custom event, and events/s over the whole run. */
async function oneStream(client: Client, transport: ProtocolTransport, count: number): Promise<{ first: number; perSecond: number }> {
  const thread = client.threads.stream({ assistantId: "custom", transport, ...(transport === "websocket" ? { webSocketFactory } : {}) });
  const t0 = performance.now();
  try {
    await thread.run.start({ input: { count } });
    const subscription = await thread.subscribe({ channels: ["custom"] });
    let first = Number.NaN;
    let received = 0;
    for await (const event of subscription) {
      if (event.method !== "custom") continue;
      if (received === 0) first = performance.now() - t0;
      const payload = (event.params.data as { payload?: { i?: number } }).payload;
      if (payload?.i !== received) throw new Error(`event ${received} carried ${JSON.stringify(event.params.data)}`);
      received += 1;
      if (received === count) break;
    }
    if (received !== count) throw new Error(`received ${received} of ${count} events`);
    return { first, perSecond: received / ((performance.now() - t0) / 1000) };
  } finally {
    await thread.close();
  }
}

export async function protocolStreams(targets: Target[], transport: ProtocolTransport, counts: ProtocolCounts, errors: ErrorTally): Promise<Row[]> {
  const metric = `protocol v2 ${transport === "sse" ? "SSE" : "WebSocket"} stream of ${counts.customEvents} custom events`;
  const firstEvent: Record<string, number[]> = { gantry: [], reference: [] };
  const perSecond: Record<string, number[]> = { gantry: [], reference: [] };
  await alternate(targets, counts.streams, async (target) => {
    try {
      const figures = await oneStream(target.client, transport, counts.customEvents);
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
