// The protocol WebSocket under custom auth, against a real `gantry dev` process: the upgrade
// request is authenticated like every request and refused with the classic API's status and JSON
// before anything is upgraded (401, the auth hook's own status and headers, 404 for another
// user's thread); an accepted socket's commands act for the user who opened it.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import { AUTH_CONFIG, clientFor } from "./auth-isolation.cases.js";
import { openSqliteStore, type GantryStore } from "./backends.js";
import { sdkClient } from "./http.js";
import { collectRun } from "./protocol-support.js";
import { webSocketThread } from "./protocol-ws.cases.js";
import { openSocket, refusedUpgrade, webSocketFactory } from "./protocol-ws-support.js";

const ALICE = { Authorization: "Bearer token-alice" };
const BOB = { Authorization: "Bearer token-bob" };

describe("protocol WebSocket upgrades under custom auth", () => {
  let store: GantryStore;
  let server: RunningGantry;
  let alicesThread: string;

  beforeAll(async () => {
    store = await openSqliteStore();
    server = await store.start(AUTH_CONFIG);
    alicesThread = (await clientFor(server.url, "token-alice").threads.create()).thread_id;
  });

  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
  });

  it("answers an upgrade without credentials 401 with the auth hook's detail", async () => {
    const refused = await refusedUpgrade(server.url, alicesThread);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: "Invalid or missing bearer token" });
  });

  it("passes on the auth hook's own status and headers", async () => {
    const refused = await refusedUpgrade(server.url, alicesThread, { Authorization: "Bearer teapot" });
    expect(refused.status).toBe(418);
    expect(refused.body).toEqual({ detail: "Short and stout" });
    expect(refused.headers["x-auth-reason"]).toBe("teapot");
  });

  it("answers 404 to a user opening another user's thread, as GET /threads/{id} does", async () => {
    const refused = await refusedUpgrade(server.url, alicesThread, BOB);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ detail: `Thread ${alicesThread} not found` });
    const classic = await fetch(`${server.url}/threads/${alicesThread}`, { headers: BOB });
    expect(classic.status).toBe(404);
  });

  it("opens the owner's thread, and a thread that does not exist yet (run.start creates it)", async () => {
    const own = await openSocket(server.url, alicesThread, ALICE);
    const state = await own.command(1, "state.get");
    expect(state).toMatchObject({ type: "success", id: 1, result: { values: {} }, meta: { thread_id: alicesThread } });
    own.socket.close();

    const fresh = await openSocket(server.url, randomUUID(), BOB);
    expect(fresh.socket.readyState).toBe(fresh.socket.OPEN);
    fresh.socket.close();
  });

  it("runs commands as the user who opened the socket: bob's run.start on a new thread makes it his", async () => {
    const threadId = randomUUID();
    const socket = await openSocket(server.url, threadId, BOB);
    const started = await socket.command(1, "run.start", { assistant_id: "agent", input: {} });
    expect(started).toMatchObject({ type: "success", id: 1, result: { run_id: expect.any(String) } });
    socket.socket.close();

    const bob = clientFor(server.url, "token-bob");
    expect((await bob.threads.get(threadId)).metadata).toMatchObject({ owner: "bob" });
    const refused = await refusedUpgrade(server.url, threadId, ALICE);
    expect(refused.status).toBe(404);
  });

  it("streams a run through the SDK's WebSocket transport for the user whose headers the socket carries", async () => {
    // The SDK refuses defaultHeaders on its WebSocket transport: the headers ride on the socket the factory makes.
    const streaming = sdkClient(server.url);
    const thread = webSocketThread(streaming, "agent", { webSocketFactory: webSocketFactory(ALICE) });
    const events = await collectRun(thread, () => thread.run.start({ input: {} }), { channels: ["values"] });
    await thread.close();
    const last = events.filter((e) => e.method === "values").at(-1)!;
    expect(last.params.data).toMatchObject({ user_id: "alice", display_name: "Alice A." });

    const bobs = streaming.threads.stream(thread.threadId, {
      assistantId: "agent",
      transport: "websocket",
      webSocketFactory: webSocketFactory(BOB),
      maxReconnectAttempts: 0,
    } as never);
    await expect(bobs.run.start({ input: {} })).rejects.toThrow(/Failed to open protocol WebSocket/);
    await bobs.close();
  });
});
