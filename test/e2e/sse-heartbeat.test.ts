// SSE heartbeats end to end: a run that stays quiet for longer than the heartbeat cadence (5 s, the
// platform's) gets `: heartbeat` comments on its stream from a real `gantry dev` process, between
// the metadata frame and the final values, and the official SDK reads through them. The SDK hides
// comments, so the raw body is read with fetch; the SDK half checks it is not disturbed by them.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import { openSqliteStore, type GantryStore } from "./backends.js";
import { sdkClient } from "./http.js";
import { collect, names, RUNS_CONFIG, RUNS_ENV } from "./runs-support.js";

// Long enough for one heartbeat at the 5 s cadence, short enough for two at most.
const QUIET_MS = 6_500;

describe("SSE heartbeats from a gantry dev process", () => {
  let store: GantryStore;
  let server: RunningGantry;

  beforeAll(async () => {
    store = await openSqliteStore();
    server = await store.start(RUNS_CONFIG, RUNS_ENV);
  });

  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
  });

  it("sends heartbeat comments while a run is quiet, between its metadata and its values", { timeout: 30_000 }, async () => {
    const threadId = randomUUID();
    const response = await fetch(`${server.url}/threads/${threadId}/runs/stream`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: { ms: QUIET_MS, label: "quiet" }, if_not_exists: "create", stream_mode: ["values"] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const body = await response.text();
    const blocks = body.split("\n\n").filter((block) => block.length > 0);

    const heartbeats = blocks.flatMap((block, index) => (block === ": heartbeat" ? [index] : []));
    expect(heartbeats.length).toBeGreaterThanOrEqual(1);
    expect(heartbeats.length).toBeLessThanOrEqual(2);
    const firstEvent = blocks.findIndex((block) => block.startsWith("event: metadata"));
    const finalValues = blocks.map((block) => block.startsWith("event: values") && block.includes('"quiet"')).lastIndexOf(true);
    expect(firstEvent).toBe(0);
    expect(heartbeats.every((index) => index > firstEvent && index < finalValues)).toBe(true);
  });

  it("lets the SDK read a stream with heartbeats in it to its end", { timeout: 30_000 }, async () => {
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    const frames = await collect(client.runs.stream(thread.thread_id, "slow", { input: { ms: QUIET_MS, label: "sdk" }, streamMode: ["values"] }));

    expect(names(frames)[0]).toBe("metadata");
    expect(frames.at(-1)).toMatchObject({ event: "values", data: { log: ["sdk"] } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });
});
