// The protocol WebSocket's transport on a real socket: the app's upgrade path, frame errors,
// heartbeats, back-pressure and subscription ordering. The protocol service is stood in for by a
// thread log kept in an array, which counts what the transport pulls from it: that is how the
// back-pressure case sees the server stop reading. The real service, end to end, is in
// test/e2e/protocol-ws*.test.ts.
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { request as httpRequest, type Server } from "node:http";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { AppEnv } from "../../src/server/app-env.js";
import { createLogger, type Logger } from "../../src/logging.js";
import { errorHandler } from "../../src/server/errors.js";
import { mountRoutes } from "../../src/server/route.js";
import type { Event as ProtocolEvent } from "@langchain/protocol";
import type { ProtocolService } from "../../src/protocol/service.js";
import { protocolWebSocketRoutes } from "../../src/server/routes/protocol-websocket.js";
import { HIGH_WATER_BYTES } from "../../src/server/websocket-connection.js";
import { serveWebSocketUpgrades, type WebSocketUpgrades } from "../../src/server/websocket-upgrade.js";
import { AuthRejection } from "../../src/errors.js";

/** The heartbeat case's server pings this often; the others' rarely, as a client that does not read cannot answer. */
const PING_MS = 300;
const QUICK = "/quick-pings";

/** A thread's protocol events in an array; readers follow it live and are counted. */
class ArrayLog {
  readonly events: ProtocolEvent[] = [];
  pulled = 0;
  #wake: (() => void)[] = [];

  append(method: string, data: unknown, namespace: string[] = []): void {
    const seq = this.events.length + 1;
    this.events.push({ type: "event", event_id: String(seq), seq, method, params: { namespace, timestamp: Date.now(), data } } as ProtocolEvent);
    for (const wake of this.#wake.splice(0)) wake();
  }

  async *read(signal: AbortSignal): AsyncGenerator<ProtocolEvent> {
    let next = 0;
    while (!signal.aborted) {
      if (next < this.events.length) {
        this.pulled += 1;
        yield this.events[next++]!;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake.push(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}

const logs = new Map<string, ArrayLog>();
const logOf = (threadId: string) => {
  if (!logs.has(threadId)) logs.set(threadId, new ArrayLog());
  return logs.get(threadId)!;
};

const endpoint: ProtocolService = {
  async command(threadId, command) {
    if (command.method === "run.start") {
      logOf(threadId).append("lifecycle", { event: "running" });
      return { type: "success", id: command.id, result: { run_id: randomUUID() } };
    }
    return { type: "error", id: command.id, error: "unknown_command", message: `Unknown protocol command: ${command.method}` };
  },
  events: async (threadId, _filter, { signal }) => logOf(threadId).read(signal!),
  // Threads are all visible: these cases are about the transport, not the auth check.
  open: async () => {},
};

/** Lines the server logged, to see it pause. */
const lines: { msg: string; fields: Record<string, unknown> }[] = [];
function recordingLogger(): Logger {
  const log = (msg: string, fields?: Record<string, unknown>) => void lines.push({ msg, fields: fields ?? {} });
  const logger: Logger = { debug: log, info: log, warn: log, error: log, child: () => logger };
  return logger;
}

let server: Server;
let upgrades: WebSocketUpgrades;
let base: string;

beforeAll(async () => {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("requestId", randomUUID());
    if (c.req.header("authorization") === "Bearer nobody") throw new AuthRejection(401, "Invalid token", { "WWW-Authenticate": "Bearer" });
    await next();
  });
  mountRoutes(app, protocolWebSocketRoutes({ protocol: endpoint, pingMs: 60_000, log: recordingLogger() }));
  const quick = new Hono<AppEnv>();
  mountRoutes(quick, protocolWebSocketRoutes({ protocol: endpoint, pingMs: PING_MS, log: recordingLogger() }));
  app.route(QUICK, quick);
  // A route that is not a WebSocket and whose answer never ends, as an SSE stream's does not.
  app.get("/forever", () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) })));
  app.get("/plain", (c) => c.json({ plain: true }));
  app.post("/echo", async (c) => c.json(await c.req.json()));
  app.onError(errorHandler(createLogger({ level: "error", json: true })));
  server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s as Server)) as Server;
  });
  upgrades = serveWebSocketUpgrades(server, app.fetch, { maxPayload: 64 * 1024, log: recordingLogger() });
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await upgrades.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A raw client that keeps every frame it receives, parsed. */
async function connect(threadId: string, options: ConstructorParameters<typeof WebSocket>[2] = {}, prefix = "") {
  const socket = new WebSocket(`ws://${base}${prefix}/threads/${threadId}/stream/events`, options);
  const frames: Record<string, unknown>[] = [];
  socket.on("message", (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, frames, closed };
}

/** Opens a socket that the server is expected to refuse; resolves to its HTTP answer. */
async function refusedUpgrade(path: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(`ws://${base}${path}`, { headers });
  return new Promise<{ status: number; body: unknown; auth: string | undefined }>((resolve, reject) => {
    socket.once("open", () => reject(new Error("the upgrade was accepted")));
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(body), auth: response.headers["www-authenticate"] }));
    });
  });
}

async function until(condition: () => boolean, what: string, ms = 15_000, everyMs = 20): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

describe("the protocol WebSocket transport", () => {
  it("answers malformed frames with an error frame naming the problem and keeps the socket open", async () => {
    const { socket, frames } = await connect(randomUUID());
    socket.send("{not json");
    socket.send(JSON.stringify([1, 2]));
    socket.send(JSON.stringify({ id: -1, method: "run.start" }));
    socket.send(JSON.stringify({ id: 7, method: 3 }));
    socket.send(JSON.stringify({ id: 8, method: "subscription.subscribe", params: { channels: ["nope"] } }));
    socket.send(JSON.stringify({ id: 9, method: "subscription.subscribe", params: { channels: [] } }));
    socket.send(Buffer.from(JSON.stringify({ id: 10, method: "no.such" })));
    await until(() => frames.length === 7, "seven answers");
    expect(frames[0]).toMatchObject({ type: "error", id: null, error: "invalid_argument", message: expect.stringMatching(/must be valid JSON/) });
    expect(frames[1]).toMatchObject({ type: "error", id: null, error: "invalid_argument" });
    expect(frames[2]).toMatchObject({ type: "error", id: null, message: expect.stringMatching(/^Field 'id' is invalid/) });
    expect(frames[3]).toMatchObject({ type: "error", id: null, message: expect.stringMatching(/^Field 'method' is invalid/) });
    const byId = new Map(frames.slice(4).map((frame) => [frame.id, frame]));
    expect(byId.get(8)).toMatchObject({
      type: "error",
      error: "invalid_argument",
      message: expect.stringMatching(/'channels\[0\]' is invalid: not a protocol channel/),
    });
    expect(byId.get(9)).toMatchObject({
      type: "error",
      error: "invalid_argument",
      message: expect.stringMatching(/'channels' is invalid: name at least one channel/),
    });
    expect(byId.get(10)).toMatchObject({ type: "error", error: "unknown_command" });
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });

  it("closes with 1009 and a reason on a frame over the size limit", async () => {
    const { socket, closed } = await connect(randomUUID());
    socket.send("x".repeat(128 * 1024));
    expect(await closed).toMatchObject({ code: 1009 });
  });

  it("refuses an upgrade the way the HTTP API refuses the request: status, JSON detail, headers", async () => {
    const refused = await refusedUpgrade(`/threads/${randomUUID()}/stream/events`, { Authorization: "Bearer nobody" });
    expect(refused).toEqual({ status: 401, body: { detail: "Invalid token" }, auth: "Bearer" });
    const notWebSocket = await refusedUpgrade("/forever");
    expect(notWebSocket).toMatchObject({ status: 400, body: { detail: "/forever does not accept WebSocket upgrades" } });
    const invalid = await refusedUpgrade("/threads/not-a-uuid/stream/events");
    expect(invalid).toMatchObject({ status: 422, body: { detail: "Path parameter 'thread_id' must be a UUID, got 'not-a-uuid'" } });
  });

  it("serves requests asking for another upgrade (curl --http2's h2c) as plain HTTP, bodies included", async () => {
    const plain = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          {
            host: "127.0.0.1",
            port: Number(base.split(":")[1]),
            method,
            path,
            headers: {
              Connection: "Upgrade, HTTP2-Settings",
              Upgrade: "h2c",
              "HTTP2-Settings": "AAMAAABkAAQCAAAAAAIAAAAA",
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(body ?? "")),
            },
          },
          (response) => {
            let text = "";
            response.on("data", (chunk: Buffer) => (text += chunk.toString()));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
          },
        );
        request.on("upgrade", () => reject(new Error("upgraded")));
        request.on("error", reject);
        // The body in two writes: part of it arrives after the headers were parsed.
        if (body) request.write(body.slice(0, 5));
        setTimeout(() => request.end(body?.slice(5)), 50);
      });
    expect(await plain("GET", "/plain")).toEqual({ status: 200, body: JSON.stringify({ plain: true }) });
    expect(await plain("POST", "/echo", JSON.stringify({ hello: "there" }))).toEqual({ status: 200, body: JSON.stringify({ hello: "there" }) });
  });

  it("answers a plain GET with 426 and a sentence", async () => {
    const response = await fetch(`http://${base}/threads/${randomUUID()}/stream/events`);
    expect(response.status).toBe(426);
    expect(await response.json()).toEqual({ detail: expect.stringMatching(/WebSocket endpoint/) });
  });

  it("drops a peer that stops answering pings and keeps one that answers", async () => {
    const silent = await connect(randomUUID(), { autoPong: false }, QUICK);
    const alive = await connect(randomUUID(), {}, QUICK);
    const gone = await silent.closed;
    expect(gone.code).toBe(1006);
    await new Promise((resolve) => setTimeout(resolve, PING_MS * 3));
    expect(alive.socket.readyState).toBe(WebSocket.OPEN);
    expect(lines.some((line) => line.msg.includes("stopped answering pings"))).toBe(true);
    alive.socket.close();
  });

  it("sends the subscribe answer before the events it replays, and replays only the new subscription's channels", async () => {
    const threadId = randomUUID();
    const log = logOf(threadId);
    log.append("lifecycle", { event: "running" });
    log.append("values", { step: 1 });
    log.append("custom", { payload: "c1" });
    const { socket, frames } = await connect(threadId);
    socket.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: { channels: ["lifecycle"] } }));
    await until(() => frames.length === 2, "the answer and one lifecycle event");
    expect(frames[0]).toMatchObject({ type: "success", id: 1, result: { subscription_id: expect.any(String) } });
    expect(frames[1]).toMatchObject({ type: "event", seq: 1, method: "lifecycle" });

    socket.send(JSON.stringify({ id: 2, method: "subscription.subscribe", params: { channels: ["values"] } }));
    await until(() => frames.length === 4, "the second answer and its replay");
    expect(frames[2]).toMatchObject({ type: "success", id: 2 });
    expect(frames[3]).toMatchObject({ type: "event", seq: 2, method: "values" });

    log.append("values", { step: 2 });
    log.append("custom", { payload: "c2" });
    log.append("lifecycle", { event: "completed" });
    await until(() => frames.length === 6, "live events for both subscriptions");
    expect(frames.slice(4).map((frame) => frame.seq)).toEqual([4, 6]);

    const values = (frames[2] as { result: { subscription_id: string } }).result.subscription_id;
    socket.send(JSON.stringify({ id: 3, method: "subscription.unsubscribe", params: { subscription_id: values } }));
    socket.send(JSON.stringify({ id: 4, method: "subscription.unsubscribe", params: { subscription_id: values } }));
    await until(() => frames.length === 8, "two unsubscribe answers");
    expect(frames[6]).toMatchObject({ type: "success", id: 3 });
    expect(frames[7]).toMatchObject({ type: "error", id: 4, error: "no_such_subscription" });
    log.append("values", { step: 3 });
    log.append("lifecycle", { event: "running" });
    await until(() => frames.length === 9, "the next lifecycle event");
    expect(frames[8]).toMatchObject({ seq: 8, method: "lifecycle" });
    socket.close();
  });

  it("loses no replay when a subscribe comes while the previous one's replay is under way", async () => {
    const threadId = randomUUID();
    const log = logOf(threadId);
    for (let i = 0; i < 300; i += 1) {
      log.append("values", { i });
      log.append("custom", { payload: i });
    }
    log.append("lifecycle", { event: "completed" });
    const { socket, frames } = await connect(threadId);
    socket.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: { channels: ["lifecycle"] } }));
    await until(() => frames.some((frame) => frame.method === "lifecycle"), "the lifecycle event");
    socket.send(JSON.stringify({ id: 2, method: "subscription.subscribe", params: { channels: ["values"] } }));
    socket.send(JSON.stringify({ id: 3, method: "subscription.subscribe", params: { channels: ["custom"] } }));
    const seqsOf = (method: string) => [...new Set(frames.filter((frame) => frame.method === method).map((frame) => frame.seq as number))];
    await until(() => seqsOf("values").length === 300 && seqsOf("custom").length === 300, "every values and custom event", 15_000);
    expect(seqsOf("values")).toEqual([...Array(300).keys()].map((i) => 2 * i + 1));
    socket.close();
  });

  it("stops reading the log while a client does not read, within the buffer bound, and delivers everything once it reads", { timeout: 60_000 }, async () => {
    const threadId = randomUUID();
    const log = logOf(threadId);
    const total = 4000;
    const payload = "x".repeat(10_000);
    for (let i = 0; i < total; i += 1) log.append("custom", { payload, i });
    const { socket, frames } = await connect(threadId);
    socket.send(JSON.stringify({ id: 1, method: "subscription.subscribe", params: { channels: ["custom"] } }));
    // The client stops reading its socket (ws's pause): the server's writes back up through the kernel buffers.
    await until(() => frames.length > 0, "the subscribe answer");
    socket.pause();
    await until(() => lines.some((line) => line.msg.startsWith("websocket paused")), "the server to pause", 30_000);
    // The kernel's buffers take some more as they drain into the paused client; then reading stops.
    let pulled = -1;
    await until(
      () => {
        const settled = log.pulled === pulled;
        pulled = log.pulled;
        return settled;
      },
      "the server to stop reading",
      30_000,
      1_000,
    );
    expect(pulled).toBeLessThan(total / 2);
    // Never more than the high-water mark plus the one frame that crossed it was held in memory.
    const pauses = lines.filter((line) => line.msg.startsWith("websocket paused"));
    for (const pause of pauses) expect(pause.fields.buffered_bytes as number).toBeLessThanOrEqual(HIGH_WATER_BYTES + payload.length + 200);

    socket.resume();
    await until(() => frames.length === total + 1, "every event", 45_000);
    expect(frames.slice(1).map((frame) => (frame.params as { data: { i: number } }).data.i)).toEqual([...Array(total).keys()]);
    socket.close();
  });

  // Last: it stops the upgrades of this file's server.
  it("closes open sockets with 1001 at shutdown, and cuts one that does not answer the close", async () => {
    const polite = await connect(randomUUID());
    const silent = await connect(randomUUID());
    // A peer that never reads answers no close frame either.
    silent.socket.pause();
    await upgrades.close();
    expect(await polite.closed).toEqual({ code: 1001, reason: "Server shutting down" });
    // close() came back without waiting for it (ws's own close timeout is 30 s); it reads its close frame, or finds the socket cut.
    silent.socket.resume();
    expect([1001, 1006]).toContain((await silent.closed).code);
  });
});
