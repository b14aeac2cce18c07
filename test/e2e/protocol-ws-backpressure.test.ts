// Back-pressure on the protocol WebSocket, against a real `gantry dev` process: a raw `ws` client
// subscribes and then stops reading while a run writes ~30 MB of events. The server pauses (it
// logs so, at debug) with never more than the high-water mark plus one frame queued on the socket,
// leaving the rest in the thread's log; once the client reads again, every event arrives, in order.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HIGH_WATER_BYTES } from "../../src/server/websocket-connection.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { openSqliteStore, type GantryStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { eventually, request, sdkClient } from "./http.js";
import { openSocket } from "./protocol-ws-support.js";

const COUNT = 1500;
const SIZE = 20_000;

describe("a protocol WebSocket client that stops reading", () => {
  let store: GantryStore;
  let server: RunningGantry;

  beforeAll(async () => {
    store = await openSqliteStore();
    // Pings are for dead peers; this client is only slow, and a client that reads nothing cannot answer them.
    server = await store.start(fixture("protocol-ws", "langgraph.json"), { LOG_LEVEL: "debug", GANTRY_WS_PING_MS: "600000" });
  });

  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
  });

  it("holds the server at the buffer bound while it does not read, and gets every event once it does", { timeout: 120_000 }, async () => {
    const threadId = randomUUID();
    const socket = await openSocket(server.url, threadId);
    await socket.command(1, "subscription.subscribe", { channels: ["custom", "lifecycle"] });
    socket.socket.pause();

    const started = await request(server.url, "POST", `/threads/${threadId}/commands`, {
      body: { id: 1, method: "run.start", params: { assistant_id: "flood", input: { count: COUNT, size: SIZE } } },
    });
    expect(started.json).toMatchObject({ type: "success" });
    const client = sdkClient(server.url);
    await eventually("the run to finish", async () => ((await client.threads.get(threadId)).status === "idle" ? true : undefined), 60_000);

    const pauses = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"websocket paused'))
      .map((line) => JSON.parse(line) as { buffered_bytes: number; thread_id: string });
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.every((pause) => pause.thread_id === threadId)).toBe(true);
    const frame = SIZE + 500;
    for (const pause of pauses) expect(pause.buffered_bytes).toBeLessThanOrEqual(HIGH_WATER_BYTES + frame);

    socket.socket.resume();
    const isCustom = (f: Record<string, unknown>) => f.type === "event" && f.method === "custom";
    await socket.until((frames) => frames.filter(isCustom).length === COUNT, "every event", 60_000);
    const order = socket.frames.filter(isCustom).map((f) => ((f.params as { data: { payload: { i: number } } }).data.payload as { i: number }).i);
    expect(order).toEqual([...Array(COUNT).keys()]);
    socket.socket.close();
  });
});
