// A deleted thread's events do not go to the next owner of its id (issue 32, item 6), seen from
// the attacker's side: alice runs run.start on thread D while she follows its streams, deletes D;
// bob creates a thread with id D, follows its protocol stream and its thread stream from the start,
// and runs his own run there. He gets his run's events and none of alice's. On `gantry dev` (the
// in-process event log) and on `gantry serve` (Redis), both under custom auth.
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { startGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { type OpenStore, openSqliteStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { request } from "./http.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const clientFor = (url: string, token: string) => new Client({ apiUrl: url, defaultHeaders: bearer(token), callerOptions: { maxRetries: 0 } });
const CONFIG = fixture("protocol", "langgraph.auth.json");

interface Frame {
  event: string;
  data: unknown;
}

/** An SSE stream's frames as they come, until `done` says enough or the server closes it. */
async function follow(url: string, path: string, init: { token: string; body?: unknown; lastEventId?: string }, done: (frames: Frame[]) => boolean) {
  const abort = new AbortController();
  const response = await fetch(`${url}${path}`, {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      ...bearer(init.token),
      accept: "text/event-stream",
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.lastEventId ? { "last-event-id": init.lastEventId } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: abort.signal,
  });
  expect(response.status, path).toBe(200);
  const frames: Frame[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const lines = buffer.slice(0, end).split("\n");
          buffer = buffer.slice(end + 2);
          const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
          const data = lines.find((l) => l.startsWith("data: "))?.slice(6);
          if (event !== undefined) frames.push({ event, data: JSON.parse(data ?? "null") });
          if (done(frames)) return frames;
        }
      }
    } catch (err) {
      if (!abort.signal.aborted) throw err;
    } finally {
      abort.abort();
    }
    return frames;
  })();
  return { frames: reading, stop: () => abort.abort() };
}

const mentions = (frames: Frame[], text: string) => JSON.stringify(frames).includes(text);
const protocolEnded = (runLabel: string) => (frames: Frame[]) =>
  mentions(frames, runLabel) &&
  frames.some((f) => f.event === "lifecycle" && ["completed", "failed"].includes((f.data as { params: { data: { event: string } } }).params?.data?.event));
const threadRunEnded = (frames: Frame[]) => frames.some((f) => f.event === "lifecycle" && (f.data as { status?: string }).status === "success");

function deletedThreadCases(open: OpenStore, env?: Record<string, string>) {
  const gantry = useGantry(open, CONFIG, env);

  it("gives the next owner of a deleted thread's id none of its protocol or thread stream events", async () => {
    const url = gantry.server.url;
    const threadId = randomUUID();
    const aliceSecret = `alice-secret-${randomUUID()}`;
    const alice = clientFor(url, "token-alice");

    // alice's run on D, with both of D's streams followed, so both logs hold her events.
    const aliceThread = await alice.threads.create({ threadId });
    expect(aliceThread.metadata).toMatchObject({ owner: "alice" });
    const aliceProtocol = await follow(
      url,
      `/threads/${threadId}/stream/events`,
      { token: "token-alice", body: { channels: ["values", "lifecycle"] } },
      protocolEnded(aliceSecret),
    );
    const aliceFollow = await follow(url, `/threads/${threadId}/stream`, { token: "token-alice" }, threadRunEnded);
    const start = { id: 1, method: "run.start", params: { assistant_id: "chain", input: { steps: [aliceSecret] } } };
    const started = await request(url, "POST", `/threads/${threadId}/commands`, { body: start, headers: bearer("token-alice") });
    expect(started.status).toBe(200);
    const runId = (started.json as { result: { run_id: string } }).result.run_id;
    await alice.runs.join(threadId, runId);
    expect(mentions(await aliceProtocol.frames, aliceSecret)).toBe(true);
    expect(mentions(await aliceFollow.frames, aliceSecret)).toBe(true);
    await alice.threads.delete(threadId);

    // bob takes the id, replays both of its streams from the start, and runs there himself.
    const bob = clientFor(url, "token-bob");
    expect((await bob.threads.create({ threadId })).metadata).toMatchObject({ owner: "bob" });
    const bobLabel = `bob-${randomUUID()}`;
    const bobProtocol = await follow(
      url,
      `/threads/${threadId}/stream/events`,
      { token: "token-bob", body: { channels: ["values", "lifecycle"] } },
      protocolEnded(bobLabel),
    );
    const bobFollow = await follow(url, `/threads/${threadId}/stream`, { token: "token-bob", lastEventId: "-" }, threadRunEnded);
    const bobStart = { id: 2, method: "run.start", params: { assistant_id: "chain", input: { steps: [bobLabel] } } };
    expect((await request(url, "POST", `/threads/${threadId}/commands`, { body: bobStart, headers: bearer("token-bob") })).status).toBe(200);
    const [protocolFrames, threadFrames] = await Promise.all([bobProtocol.frames, bobFollow.frames]);
    expect(mentions(protocolFrames, bobLabel)).toBe(true);
    expect(mentions(threadFrames, bobLabel)).toBe(true);
    expect(mentions(protocolFrames, aliceSecret), JSON.stringify(protocolFrames)).toBe(false);
    expect(mentions(threadFrames, aliceSecret), JSON.stringify(threadFrames)).toBe(false);
    expect(protocolFrames.filter((f) => f.event === "error")).toEqual([]);
    expect(threadFrames.filter((f) => f.event === "error")).toEqual([]);
    // alice's run went with her thread: bob cannot reach it, nor its log. As on the reference, the
    // join opens a stream whose one event is an error saying 404.
    const join = await request(url, "GET", `/threads/${threadId}/runs/${runId}/stream`, { headers: bearer("token-bob") });
    expect(join.text).toMatch(/^event: error\n/);
    expect(join.text).toContain("404");
    expect(join.text).not.toContain(aliceSecret);
  });
}

describe("a deleted thread's events on gantry dev (SQLite, in-process event log)", () => {
  deletedThreadCases(openSqliteStore);
});

await describeWithPostgresAndRedis("a deleted thread's events on gantry serve (PostgreSQL, Redis)", () => {
  const serve: OpenStore = async () => {
    const schema = freshSchemaName();
    const prefix = freshKeyPrefix();
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    return {
      backend: "postgres",
      start: (config, env) =>
        startGantry({ command: "serve", config, env: { ...env, DATABASE_URL: url.toString(), REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix } }),
      openStorage: () => {
        throw new Error("not used here");
      },
      dispose: async () => {
        await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await deleteKeys(prefix);
      },
    };
  };
  deletedThreadCases(serve);
});
