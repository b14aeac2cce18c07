// The Agent Server fuzzed through every route of its own /openapi.json, against a real `gantry dev`
// on one backend. Properties: no request gets a 5xx, every request is answered within a bound,
// the server still answers /ok afterwards, and data made before the fuzzing (which no request
// can name) is unchanged. Requests go out in small concurrent batches; a failing batch is shrunk
// by fast-check to the one request that fails, printed as a reproducer with the seed.
// FUZZ_RUNS sets the number of requests per backend (default 5,000).
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "../e2e/backends.js";
import { GRAPHS_CONFIG } from "../e2e/fixture-paths.js";
import { request } from "../e2e/http.js";
import { anyRequest, sendChecked, Tally } from "./fuzz-requests.js";

const REQUESTS = Number(process.env.FUZZ_RUNS ?? 5_000);
/** Requests in flight at once: the server is mostly waiting on its database, so a few dozen keep it busy. */
const BATCH = 32;
/** Longest a request may wait for its answer's status line. */
const ANSWER_BOUND_MS = 20_000;

interface Witness {
  reads: Array<{ path: string; method: string; body?: unknown }>;
  answers: string[];
}

/** Things made before the fuzzing under names no generated request uses, and how to read them back. */
async function makeWitness(url: string): Promise<Witness> {
  const assistantId = randomUUID();
  const threadId = randomUUID();
  const label = `witness-${randomUUID()}`;
  const made = [
    await request(url, "POST", "/assistants", { body: { assistant_id: assistantId, graph_id: "echo", name: "witness", metadata: { kept: true, n: 1 } } }),
    await request(url, "POST", "/threads", { body: { thread_id: threadId, metadata: { kept: "yes", nested: { list: [1, 2] } } } }),
    await request(url, "PUT", "/store/items", { body: { namespace: [label, "notes"], key: "k", value: { text: "keep me", n: [1, { a: null }] } } }),
  ];
  for (const answer of made) expect(answer.status, answer.text).toBeLessThan(300);
  const reads = [
    { method: "GET", path: `/assistants/${assistantId}` },
    { method: "GET", path: `/threads/${threadId}` },
    { method: "GET", path: `/threads/${threadId}/state` },
    { method: "GET", path: `/store/items?namespace=${label}.notes&key=k&refresh_ttl=false` },
    { method: "POST", path: "/store/items/search", body: { namespace_prefix: [label] } },
  ];
  return { reads, answers: await readAll(url, reads) };
}

async function readAll(url: string, reads: Witness["reads"]): Promise<string[]> {
  const answers: string[] = [];
  for (const read of reads) {
    const answer = await request(url, read.method, read.path, read.body === undefined ? {} : { body: read.body });
    answers.push(`${answer.status} ${answer.text}`);
  }
  return answers;
}

/** Ids and names the fuzzer may use, so that requests also reach existing things. */
async function makeTargets(url: string): Promise<string[]> {
  const assistant = await request(url, "POST", "/assistants", { body: { graph_id: "echo", metadata: { target: true } } });
  const thread = await request(url, "POST", "/threads", { body: { metadata: { target: true } } });
  const threadId = (thread.json as { thread_id: string }).thread_id;
  const run = await request(url, "POST", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "echo", input: { messages: [] } } });
  const runs = await request(url, "GET", `/threads/${threadId}/runs`);
  const runId = (runs.json as Array<{ run_id: string }> | undefined)?.[0]?.run_id;
  expect(run.status, run.text).toBeLessThan(500);
  return [(assistant.json as { assistant_id: string }).assistant_id, threadId, ...(runId ? [runId] : []), "echo", "nested", "target"];
}

export function describeAgentServerFuzz(backend: string, open: OpenStore): void {
  describe(`fuzzing the Agent Server on ${backend}`, () => {
    let store: GantryStore;
    let server: RunningGantry;

    beforeAll(async () => {
      store = await open();
      server = await store.start(GRAPHS_CONFIG);
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    it("answers every generated request without a 5xx and in bounded time, and keeps earlier data intact", async () => {
      const witness = await makeWitness(server.url);
      const known = fc.constantFrom(...(await makeTargets(server.url)));
      const doc = (await request(server.url, "GET", "/openapi.json")).json as Parameters<typeof anyRequest>[0];
      const batch = fc.array(anyRequest(doc, known), { minLength: 1, maxLength: BATCH });
      const tally = new Tally();
      while (tally.sent < REQUESTS) {
        await fc.assert(
          fc.asyncProperty(batch, async (requests) => {
            await Promise.all(requests.map((r) => sendChecked(server.url, r, ANSWER_BOUND_MS, tally)));
          }),
          { numRuns: Math.max(1, Math.ceil((REQUESTS - tally.sent) / (BATCH / 2))) },
        );
      }
      console.log(`fuzz ${backend}: ${tally.summary()}`);
      const ok = await request(server.url, "GET", "/ok");
      expect(ok.status).toBe(200);
      expect(await readAll(server.url, witness.reads)).toEqual(witness.answers);
    }, 600_000);
  });
}
