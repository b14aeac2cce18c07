// A stream never ends silently short: while a run streams on `gantry serve`, every key of its
// Redis (the test's own key prefix, so nobody else's) is deleted, as a Redis restarted without
// persistence or an eviction would leave it. Every reader (the resumable run stream through the
// official SDK, a join with Last-Event-ID, the thread stream and the protocol v2 stream) ends in
// an SSE `error` event that says events were lost, never in a clean end; the run itself finishes,
// and its final values come from storage.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sdkClient } from "../e2e/http.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";

interface Frame {
  event: string;
  data: unknown;
  id?: string;
}

/** Every frame of an SSE response, in order, until the server closes it. */
async function* sseFrames(response: Response): AsyncGenerator<Frame> {
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const lines = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      const event = field("event");
      if (event === undefined) continue;
      const id = field("id");
      yield { event, data: JSON.parse(field("data") ?? "null"), ...(id !== undefined ? { id } : {}) };
    }
  }
}

/** Reads frames until the stream closes; `seen` is called with each, so the test can act mid-stream. */
async function readAll(frames: AsyncIterable<Frame>, seen?: (frame: Frame) => Promise<void> | void): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const frame of frames) {
    out.push(frame);
    await seen?.(frame);
  }
  return out;
}

/** The stream ended in an error that says events were lost, and nothing came after it. */
function expectEndedInLoss(frames: Frame[], what: string): void {
  const last = frames.at(-1);
  expect(last?.event, `${what}: ${JSON.stringify(frames.map((f) => f.event))}`).toBe("error");
  expect(last?.data).toMatchObject({ error: "EventsLostError", message: expect.stringMatching(/cannot be sent/) });
}

await describeWithPostgresAndRedis("gantry serve when Redis loses a streaming run's events", () => {
  const prefix = freshKeyPrefix();
  let cluster: ServeCluster;
  let replica: RunningGantry;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-log-loss-"));
    // The replica's keys under a prefix this test owns: wiping it is this test's Redis restarting empty.
    cluster = await openServeCluster({ REDIS_KEY_PREFIX: prefix });
    replica = await cluster.start("all");
  });

  afterAll(async () => {
    await cluster?.dispose().catch(() => {});
    await deleteKeys(prefix);
    await rm(dir, { recursive: true, force: true });
  });

  it("ends the run stream, a Last-Event-ID join, the thread stream and the protocol stream in an error, and the run still finishes", async () => {
    const client = sdkClient(replica.url);
    const thread = await client.threads.create();
    const threadId = thread.thread_id;
    const readers = new AbortController();
    // Followers of the thread, attached before the run starts.
    const threadStream = readAll(
      sseFrames(await fetch(`${replica.url}/threads/${threadId}/stream`, { headers: { accept: "text/event-stream" }, signal: readers.signal })),
    );
    const protocolStream = readAll(
      sseFrames(
        await fetch(`${replica.url}/threads/${threadId}/stream/events`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ channels: ["values", "lifecycle"] }),
          signal: readers.signal,
        }),
      ),
    );

    let wiped: Promise<Frame[]> | undefined;
    let runId = "";
    const input = { record_file: join(dir, "steps.log"), pause_ms: 700 };
    const runStream: Frame[] = [];
    for await (const chunk of client.runs.stream(threadId, "steps", { input, streamMode: ["values"], streamResumable: true })) {
      runStream.push({ event: chunk.event, data: chunk.data, ...(chunk.id ? { id: chunk.id } : {}) });
      if (chunk.event === "metadata") runId = (chunk.data as { run_id: string }).run_id;
      const done = (chunk.data as { done?: string[] } | undefined)?.done;
      if (!wiped && chunk.event === "values" && done?.length === 1) {
        // Step 1 is through and streamed: Redis loses everything it held.
        await deleteKeys(prefix);
        expect(chunk.id).toBeDefined();
        wiped = readAll(client.runs.joinStream(threadId, runId, { lastEventId: chunk.id!, streamMode: ["values"] }) as AsyncIterable<Frame>);
      }
    }
    expect(wiped, "step 1's values were streamed").toBeDefined();
    expectEndedInLoss(runStream, "the run stream");
    expectEndedInLoss(await wiped!, "the join with Last-Event-ID");

    // The run went on without its log: it finishes, and /join answers from storage.
    const final = (await client.runs.join(threadId, runId)) as { done: string[] };
    expect(final.done).toEqual(["step1", "step2", "step3", "step4", "step5"]);
    expect((await client.runs.get(threadId, runId)).status).toBe("success");

    // The thread's followers had been told too; they are closed by the server, not by the test.
    const [threadFrames, protocolFrames] = await Promise.all([threadStream, protocolStream]);
    readers.abort();
    expectEndedInLoss(threadFrames, "the thread stream");
    expectEndedInLoss(protocolFrames, "the protocol stream");

    // A join from the start now says so as well, rather than replaying a log that starts mid-run.
    expectEndedInLoss(await readAll(client.runs.joinStream(threadId, runId, { lastEventId: "-1" }) as AsyncIterable<Frame>), "a replay after the run");
  });
});
