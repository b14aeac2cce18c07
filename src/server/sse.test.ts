import type { Server } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { serve, type HttpBindings } from "@hono/node-server";
import { Client } from "@langchain/langgraph-sdk";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryEventLog } from "../events/memory-event-log.js";
import type { AppEnv } from "./app-env.js";
import { formatSseEvent, parseLastEventId, sseResponse, type SseEvent, type SseOptions } from "./sse.js";

// The SDK's own decoders, so framing is checked against the parser users run. The package's
// export map hides them, so they are loaded by file path from the installed package.
interface Decoded {
  event: string;
  data: unknown;
  id?: string;
}
const sdkDist = dirname(createRequire(import.meta.url).resolve("@langchain/langgraph-sdk"));
const { BytesLineDecoder, SSEDecoder } = (await import(pathToFileURL(join(sdkDist, "utils", "sse.js")).href)) as {
  BytesLineDecoder: () => TransformStream<Uint8Array, Uint8Array>;
  SSEDecoder: () => TransformStream<Uint8Array, Decoded>;
};

async function decode(body: ReadableStream<Uint8Array>): Promise<Decoded[]> {
  const out: Decoded[] = [];
  for await (const event of body.pipeThrough(BytesLineDecoder()).pipeThrough(SSEDecoder())) out.push(event);
  return out;
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0)) await stop();
});

async function listen(app: Hono<AppEnv>): Promise<string> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      running.push(
        () =>
          new Promise((done) => {
            (server as Server).closeAllConnections();
            server.close(() => done());
          }),
      );
      resolve(`http://127.0.0.1:${info.port}`);
    });
  });
}

/** Serves one SSE route at /stream whose events and options come from the test. */
async function serveStream(source: () => AsyncIterable<SseEvent>, options: SseOptions = {}): Promise<string> {
  const app = new Hono<AppEnv>();
  app.get("/stream", (c) => sseResponse(c, source(), options));
  return (await listen(app)) + "/stream";
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** True once `value()` has not changed for `quietMs`: how a test knows a producer has paused. */
function settled(value: () => number, quietMs = 300): () => boolean {
  let last = Number.NaN;
  let since = Date.now();
  return () => {
    const current = value();
    if (current !== last) {
      last = current;
      since = Date.now();
      return false;
    }
    return Date.now() - since >= quietMs;
  };
}

/** An endless source that counts how often it is pulled, and whether it was pulled after return(). */
function countingSource(payloadBytes = 16) {
  const stats = { pulls: 0, returned: false, pullsAfterReturn: 0 };
  const pad = "x".repeat(payloadBytes);
  const iterator: AsyncIterator<SseEvent> = {
    async next() {
      if (stats.returned) stats.pullsAfterReturn += 1;
      stats.pulls += 1;
      return { done: false, value: { event: "values", data: { i: stats.pulls, pad }, id: `${stats.pulls}-0` } };
    },
    async return() {
      stats.returned = true;
      return { done: true, value: undefined };
    },
  };
  return { stats, source: () => ({ [Symbol.asyncIterator]: () => iterator }) };
}

async function readUntil(body: ReadableStream<Uint8Array>, done: (text: string) => boolean): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!done(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describe("sse frames", () => {
  it("writes data as one line of JSON and strips line breaks from names and ids", () => {
    expect(formatSseEvent({ event: "val\r\nues", data: { text: "a\nb\u2028c" }, id: "1-0\n\rid: x" })).toBe(
      'event: values\ndata: {"text":"a\\nb\u2028c"}\nid: 1-0id: x\n\n',
    );
    expect(formatSseEvent({ event: "end", data: undefined })).toBe("event: end\ndata: null\n\n");
  });

  it("reads Last-Event-ID without surrounding space and treats an empty header as absent", () => {
    expect(parseLastEventId(" 1700000000000-3 ")).toBe("1700000000000-3");
    expect(parseLastEventId("")).toBeUndefined();
    expect(parseLastEventId(undefined)).toBeUndefined();
  });
});

describe("sse response", () => {
  it("streams frames the SDK's parser reads back with their ids, under the SSE headers", async () => {
    const sent: SseEvent[] = [
      { event: "metadata", data: { run_id: "r1", attempt: 1 }, id: "1-0" },
      { event: "messages|agent:1", data: [{ content: "line\nbreak \u2028 sep" }, { langgraph_node: "agent" }], id: "1-1" },
      { event: "values", data: null },
    ];
    const url = await serveStream(
      async function* () {
        yield* sent;
      },
      { headers: { "Content-Location": "/threads/t/runs/r1", Location: "/threads/t/runs/r1/stream" } },
    );
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.headers.get("content-location")).toBe("/threads/t/runs/r1");
    expect(response.headers.get("location")).toBe("/threads/t/runs/r1/stream");
    // SSE keeps the last id until a frame sets another, so the frame without one reports "1-1".
    expect(await decode(response.body!)).toEqual([sent[0], sent[1], { ...sent[2], id: "1-1" }]);
  });

  // A source draining events that already exist never leaves the microtask queue, and Node sends a
  // response's writes only on the next tick, unless the first frame is flushed on its own.
  it("hands the first frame of a burst to the socket before the burst's microtasks end", async () => {
    const seen: Array<{ ticked: boolean; unsent: number }> = [];
    const app = new Hono<AppEnv>();
    app.get("/stream", (c) => {
      const socket = (c.env as HttpBindings).outgoing.socket!;
      return sseResponse(
        c,
        (async function* () {
          yield { event: "custom", data: { i: 0 } };
          let ticked = false;
          process.nextTick(() => {
            ticked = true;
          });
          for (let hop = 0; hop < 20; hop++) await null;
          seen.push({ ticked, unsent: socket.writableLength });
          yield { event: "custom", data: { i: 1 } };
        })(),
      );
    });
    const response = await fetch((await listen(app)) + "/stream");
    expect((await decode(response.body!)).map((event) => event.data)).toEqual([{ i: 0 }, { i: 1 }]);
    expect(seen).toEqual([{ ticked: false, unsent: 0 }]);
  });

  it("lets the official client resume after a dropped connection, with no event lost or repeated", async () => {
    const log = createMemoryEventLog({ retentionMs: 60_000 });
    running.push(async () => log.close());
    await log.open("run-1", { resumable: true });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await log.append("run-1", { event: "custom", data: { i } }));
    await log.end("run-1");

    const lastEventIds: Array<string | undefined> = [];
    const app = new Hono<AppEnv>();
    app.get("/runs/:run_id/stream", (c) => {
      const lastEventId = parseLastEventId(c.req.header("last-event-id"));
      lastEventIds.push(lastEventId);
      const firstConnection = lastEventIds.length === 1;
      const reading = new AbortController();
      async function* events() {
        let sent = 0;
        for await (const event of log.read(c.req.param("run_id"), { after: lastEventId ?? "-1", signal: reading.signal })) {
          yield event;
          // The previous frame is on the wire once the writer asks for the next one; then the line drops.
          if (firstConnection && ++sent === 3) (c.env as HttpBindings).incoming.socket.destroySoon();
        }
      }
      return sseResponse(c, events(), {
        headers: { Location: `/runs/${c.req.param("run_id")}/stream` },
        onDisconnect: () => reading.abort(),
      });
    });
    const client = new Client({ apiUrl: await listen(app) });

    const received: Array<{ event: string; data: unknown }> = [];
    for await (const part of client.runs.joinStream(null, "run-1")) received.push(part);

    expect(received).toEqual(ids.map((id, i) => ({ id, event: "custom", data: { i } })));
    expect(lastEventIds).toEqual([undefined, ids[2]]);
  });

  it("sends heartbeat comments while the source is quiet", async () => {
    const log = createMemoryEventLog({ retentionMs: 60_000 });
    running.push(async () => log.close());
    await log.open("quiet", { resumable: false });
    const reading = new AbortController();
    const url = await serveStream(() => log.read("quiet", { signal: reading.signal }), {
      heartbeatMs: 50,
      onDisconnect: () => reading.abort(),
    });
    const response = await fetch(url);
    const text = await readUntil(response.body!, (t) => t.split(": heartbeat\n\n").length > 3);
    expect(text).toMatch(/^(: heartbeat\n\n){3}/);
  });

  it("ends with an error event naming the error when the source throws, and closes", async () => {
    const url = await serveStream(async function* () {
      yield { event: "values", data: 1, id: "1-0" };
      throw new TypeError("graph exploded");
    });
    const response = await fetch(url);
    const text = await response.text();
    expect(text).not.toContain("    at ");
    expect(await decode(new Response(text).body!)).toEqual([
      { event: "values", data: 1, id: "1-0" },
      { event: "error", data: { error: "TypeError", message: "graph exploded" }, id: "1-0" },
    ]);
  });

  it("stops pulling, returns the source and calls onDisconnect once when the client leaves", async () => {
    const { stats, source } = countingSource();
    let disconnects = 0;
    const url = await serveStream(source, { heartbeatMs: 50, onDisconnect: () => (disconnects += 1) });
    const response = await fetch(url);
    await readUntil(response.body!, (t) => t.includes('"i":10,'));
    await waitUntil(() => disconnects > 0);
    await waitUntil(settled(() => stats.pulls));
    expect(disconnects).toBe(1);
    expect(stats.returned).toBe(true);
    expect(stats.pullsAfterReturn).toBe(0);
  });

  it("releases a log reader that is waiting for its next event when the client leaves", async () => {
    let clock = 0;
    const log = createMemoryEventLog({ retentionMs: 1_000, now: () => clock });
    running.push(async () => log.close());
    await log.open("thread:t", { resumable: true, expiresWhenIdle: true });
    await log.append("thread:t", { event: "values", data: 1 });
    const app = new Hono<AppEnv>();
    app.get("/stream", (c) => {
      const reading = new AbortController();
      return sseResponse(c, log.read("thread:t", { after: "-", signal: reading.signal }), {
        onDisconnect: () => reading.abort(),
      });
    });
    const response = await fetch((await listen(app)) + "/stream");
    await readUntil(response.body!, (t) => t.includes("data: 1"));
    // An idle thread log outlives the retention time only while a reader is attached.
    await waitUntil(async () => {
      clock += 1_000;
      return !(await log.has("thread:t"));
    });
  });

  it("pulls from the source no faster than a paused client reads", async () => {
    const total = 100_000;
    const { stats, source } = countingSource(1024);
    const limited = () => {
      const inner = source()[Symbol.asyncIterator]();
      return {
        [Symbol.asyncIterator]: () => ({
          next: async () => (stats.pulls >= total ? { done: true as const, value: undefined } : inner.next()),
          return: () => inner.return!(),
        }),
      };
    };
    const url = await serveStream(limited);
    const response = await fetch(url);
    await waitUntil(settled(() => stats.pulls));
    const pausedAt = stats.pulls;
    expect(pausedAt).toBeGreaterThan(0);
    expect(pausedAt).toBeLessThan(20_000);

    await readUntil(response.body!, (t) => t.length > 4 * 1024 * 1024);
    await waitUntil(() => stats.returned);
    expect(stats.pulls).toBeGreaterThan(pausedAt);
    expect(stats.pulls).toBeLessThan(total);
  });

  it("closes the response when the server-side signal aborts", async () => {
    const log = createMemoryEventLog({ retentionMs: 60_000 });
    running.push(async () => log.close());
    await log.open("r", { resumable: false });
    const shutdown = new AbortController();
    const url = await serveStream(() => log.read("r", { signal: shutdown.signal }), { signal: shutdown.signal });
    const response = await fetch(url);
    const text = response.text();
    await log.append("r", { event: "values", data: 1 });
    shutdown.abort();
    expect(await text).toMatch(/^(: heartbeat\n\n)*(event: values\ndata: 1\nid: \d+-0\n\n)?$/);
  });
});
