// Encryption at rest of every copy of a graph's state, as a user meets it: through the SDK, a
// streamed run (its event log), an interrupted thread with a webhook, a cron and a store item, written in turn with
// no key, with a first key, then with a second key that keeps the first for reading. Then the whole
// database (every byte of the SQLite files; every row of every PostgreSQL table) and, on `gantry
// serve`, every Redis stream entry, hold no plaintext of what was written under a key, while the
// SDK reads all of it back, and what was written before the key stays as readable as it was.
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import type { GantryStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver.js";
import { sdkClient } from "./http.js";

const CONFIG = fixture("encryption", "langgraph.state.json");
const FIRST_KEY = "first-key-of-16b";
const SECOND_KEY = "second-key-is-32-bytes-long-ok!!";
const PHASES = ["plain", "first", "second"] as const;
type Phase = (typeof PHASES)[number];
const ENV: Record<Phase, Record<string, string>> = {
  plain: {},
  first: { LANGGRAPH_AES_KEY: FIRST_KEY, GANTRY_AES_STORE_CLEAR_KEYS: "kind" },
  second: { LANGGRAPH_AES_KEY: SECOND_KEY, GANTRY_AES_PREVIOUS_KEYS: FIRST_KEY, GANTRY_AES_STORE_CLEAR_KEYS: "kind" },
};

/** What one phase wrote: the secret in all of it, and where to find each copy. */
interface Written {
  secret: string;
  echoThread: string;
  echoRun: string;
  askThread: string;
  cronId: string;
}

/** A store whose servers may also keep event logs in Redis, under `redisPrefix`. */
export interface StateStore extends GantryStore {
  redisPrefix?: string;
}

/** Every byte the database holds: the SQLite files (WAL included), or every PostgreSQL row as text, bytea also as its bytes. */
async function databaseBytes(store: GantryStore): Promise<Buffer> {
  if (store.sqliteFile) {
    const dir = join(store.sqliteFile, "..");
    const files = (await readdir(dir)).filter((name) => name.startsWith("gantry.sqlite"));
    return Buffer.concat(await Promise.all(files.map((name) => readFile(join(dir, name)))));
  }
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1", [
      store.schema,
    ]);
    const parts: Buffer[] = [];
    for (const { name } of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${store.schema}"."${name}" t`);
      // A bytea column prints as \x and hex: its bytes are decoded so a plaintext inside shows.
      for (const { row } of rows) parts.push(Buffer.from(row), ...[...row.matchAll(/\\\\x([0-9a-f]+)/g)].map((m) => Buffer.from(m[1]!, "hex")));
    }
    return Buffer.concat(parts);
  } finally {
    await client.end();
  }
}

/** Every field of every Redis stream entry under the prefix. */
async function redisStreamBytes(prefix: string): Promise<{ bytes: Buffer; entries: number }> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    const parts: Buffer[] = [];
    let entries = 0;
    for (const key of keys) {
      if ((await redis.type(key)) !== "stream") continue;
      for (const [, fields] of await redis.xrange(key, "-", "+")) {
        entries += 1;
        parts.push(Buffer.from(fields.join("\n")));
      }
    }
    return { bytes: Buffer.concat(parts), entries };
  } finally {
    redis.disconnect();
  }
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

async function writeState(client: Client, phase: Phase, webhooks: WebhookReceiver): Promise<Written> {
  const secret = `${phase}-secret-${randomUUID()}`;
  const { thread_id: echoThread } = await client.threads.create();
  let echoRun = "";
  for await (const chunk of client.runs.stream(echoThread, "echo", {
    input: { messages: [secret] },
    streamMode: ["values", "updates"],
    streamResumable: true,
  })) {
    if (chunk.event === "metadata") echoRun = (chunk.data as { run_id: string }).run_id;
  }
  const { thread_id: askThread } = await client.threads.create();
  // Its webhook's body, which holds the values, waits in the outbox until it is delivered, and stays there.
  const delivered = webhooks.received.length + 1;
  await client.runs.wait(askThread, "ask", { input: { text: secret }, webhook: `${webhooks.url}/${phase}` });
  await webhooks.waitFor(delivered);
  const cron = await client.crons.createForThread(echoThread, "echo", { schedule: "0 0 1 1 *", input: { messages: [`cron-${secret}`] } });
  await client.store.putItem(["encrypted", phase], "item", { body: secret, kind: `kind-${phase}` });
  return { secret, echoThread, echoRun, askThread, cronId: cron.cron_id };
}

export function describeStateEncryptionE2E(label: string, open: () => Promise<StateStore>): void {
  describe(`encryption at rest of the state's copies, the event log and the store (${label})`, () => {
    let store: StateStore;
    let server: RunningGantry;
    let client: Client;
    let webhooks: WebhookReceiver;
    const written = {} as Record<Phase, Written>;

    beforeAll(async () => {
      store = await open();
      webhooks = await startReceiver();
      for (const phase of PHASES) {
        const running = await store.start(CONFIG, ENV[phase]);
        written[phase] = await writeState(sdkClient(running.url), phase, webhooks);
        if (phase === "second") server = running;
        else await running.stop();
      }
      client = sdkClient(server.url);
    });

    afterAll(async () => {
      await server?.stop();
      await webhooks?.close();
      await store?.dispose();
    });

    it("delivers each run's webhook with the values, from a body stored sealed", () => {
      for (const phase of PHASES) {
        const body = webhooks.received.find((hook) => hook.path === `/${phase}`)?.json;
        expect(body, phase).toMatchObject({ values: { text: written[phase].secret }, kwargs: { input: { text: written[phase].secret } } });
      }
    });

    it("leaves no plaintext of what was written under a key anywhere in the database", async () => {
      const bytes = await databaseBytes(store);
      expect(bytes.includes(written.plain.secret), "the scan finds plaintext written before the key").toBe(true);
      for (const phase of ["first", "second"] as const) expect(bytes.includes(written[phase].secret), phase).toBe(false);
    });

    it("reads back each thread's values copy and interrupts, each run's kwargs, each cron's payload, each store item", async () => {
      for (const phase of PHASES) {
        const { secret, echoThread, echoRun, askThread, cronId } = written[phase];
        expect((await client.threads.get<{ reply: string }>(echoThread)).values).toMatchObject({ reply: secret });
        const asked = await client.threads.get(askThread);
        expect(asked.status).toBe("interrupted");
        expect(JSON.stringify(asked.interrupts)).toContain(secret);
        const run = (await client.runs.get(echoThread, echoRun)) as unknown as { kwargs: { input: { messages: string[] } } };
        expect(run.kwargs.input.messages).toEqual([secret]);
        const [cron] = await client.crons.search({ threadId: echoThread });
        expect(cron).toMatchObject({ cron_id: cronId, payload: { input: { messages: [`cron-${secret}`] } } });
        expect((await client.store.getItem(["encrypted", phase], "item"))?.value).toEqual({ body: secret, kind: `kind-${phase}` });
      }
    });

    it("resumes an interrupted thread written under the retired key", async () => {
      const { askThread, secret } = written.first;
      const state = await client.runs.wait(askThread, "ask", { command: { resume: `answer-${secret}` } });
      expect(state).toMatchObject({ text: secret, answer: `answer-${secret}` });
      const bytes = await databaseBytes(store);
      expect(bytes.includes(`answer-${secret}`)).toBe(false);
    });

    it("keeps store search on the clear keys, and finds nothing by a sealed one unless it was written before the key", async () => {
      for (const phase of PHASES) {
        const { items } = await client.store.searchItems(["encrypted"], { filter: { kind: `kind-${phase}` } });
        expect(items.map((item) => item.value)).toEqual([{ body: written[phase].secret, kind: `kind-${phase}` }]);
        const bySealed = await client.store.searchItems(["encrypted"], { filter: { body: written[phase].secret } });
        expect(bySealed.items.length, phase).toBe(phase === "plain" ? 1 : 0);
      }
    });

    it("finds threads by values only where the values were written before the key", async () => {
      for (const phase of PHASES) {
        const found = await client.threads.search({ values: { reply: written[phase].secret } });
        expect(
          found.map((thread) => thread.thread_id),
          phase,
        ).toEqual(phase === "plain" ? [written.plain.echoThread] : []);
      }
    });

    it("replays a run's stream from its event log with the values as they were streamed", async () => {
      const { echoThread, echoRun, secret } = written.second;
      const replay = await collect(client.runs.joinStream(echoThread, echoRun, { lastEventId: "-1" }));
      expect(replay.some((chunk) => chunk.event === "values" && (chunk.data as { reply?: string }).reply === secret)).toBe(true);
    });

    it.runIf(label.includes("redis"))("holds the event logs in Redis sealed, and replays those written before the key and under the retired one", async () => {
      const { bytes, entries } = await redisStreamBytes(store.redisPrefix!);
      expect(entries).toBeGreaterThan(0);
      expect(bytes.includes(written.plain.secret), "the scan finds plaintext written before the key").toBe(true);
      for (const phase of ["first", "second"] as const) expect(bytes.includes(written[phase].secret), phase).toBe(false);
      for (const phase of ["plain", "first"] as const) {
        const { echoThread, echoRun, secret } = written[phase];
        const replay = await collect(client.runs.joinStream(echoThread, echoRun, { lastEventId: "-1" }));
        expect(
          replay.some((chunk) => chunk.event === "values" && (chunk.data as { reply?: string }).reply === secret),
          phase,
        ).toBe(true);
      }
    });
  });
}
