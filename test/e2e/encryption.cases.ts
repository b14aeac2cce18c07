// Encryption at rest as a user meets it: runs through the SDK against a real Gantry with
// LANGGRAPH_AES_KEY set, then the checkpoint rows read straight from the database (the SQLite
// file, the PostgreSQL tables) hold no plaintext of the state. Over one storage, in turn: data
// written with no key, then with a first key, then with a second key that keeps the first for
// reading; every thread stays readable, and the rows name the key that sealed them.
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealedEnvelope } from "../../src/encryption/encrypted-serde.js";
import { keyRing } from "../../src/encryption/key-ring.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture, GRAPHS_CONFIG } from "./fixture-paths.js";
import { sdkClient } from "./http.js";

const FIRST_KEY = "first-key-of-16b";
const SECOND_KEY = "second-key-is-32-bytes-long-ok!!";
const AES_MARKER = Buffer.from([0x00, 0x47, 0x45, 0x01]);
const CUSTOM_MARKER = Buffer.concat([Buffer.from([0x00, 0x47, 0x43, 0x01]), Buffer.from("kms:tenant-a:")]);

const keyIdOf = (key: string) => Buffer.from(keyRing({ key, name: "test" }).currentKeyId, "hex");

/** Every stored blob of the thread's checkpoints and pending writes, read from the database itself. */
async function checkpointBlobs(store: GantryStore, threadId: string): Promise<Buffer[]> {
  if (store.sqliteFile) {
    const db = new Database(store.sqliteFile, { readonly: true });
    try {
      const rows = db
        .prepare("SELECT checkpoint AS data FROM checkpoints WHERE thread_id = ? UNION ALL SELECT value FROM writes WHERE thread_id = ?")
        .all(threadId, threadId) as { data: Buffer }[];
      return rows.map((row) => row.data);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ data: Buffer | null }>(
      `SELECT blob AS data FROM "${store.schema}".checkpoint_blobs WHERE thread_id = $1
       UNION ALL SELECT blob FROM "${store.schema}".checkpoint_writes WHERE thread_id = $1
       UNION ALL SELECT convert_to(checkpoint::text || metadata::text, 'UTF8') FROM "${store.schema}".checkpoints WHERE thread_id = $1`,
      [threadId],
    );
    return rows.flatMap((row) => (row.data ? [row.data] : []));
  } finally {
    await client.end();
  }
}

/** The sealed envelopes among the blobs: on PostgreSQL the checkpoint row itself is plain JSON without the state. */
const sealedBlobs = (blobs: Buffer[]) => blobs.flatMap((blob) => sealedEnvelope(blob) ?? []);

/** The metadata of the thread, its runs and its crons, and the store item's value, as stored, read from the database itself. */
async function storedJson(store: GantryStore, threadId: string, key: string): Promise<string> {
  if (store.sqliteFile) {
    const db = new Database(store.sqliteFile, { readonly: true });
    try {
      const rows = db
        .prepare(
          `SELECT CAST(metadata AS TEXT) AS text FROM threads WHERE thread_id = @thread
           UNION ALL SELECT CAST(metadata AS TEXT) FROM runs WHERE thread_id = @thread
           UNION ALL SELECT CAST(metadata AS TEXT) FROM crons WHERE thread_id = @thread
           UNION ALL SELECT CAST(value AS TEXT) FROM store_items WHERE key = @key`,
        )
        .all({ thread: threadId, key }) as { text: string }[];
      return rows.map((row) => row.text).join("");
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ text: string }>(
      `SELECT metadata::text AS text FROM "${store.schema}".threads WHERE thread_id = $1
       UNION ALL SELECT metadata::text FROM "${store.schema}".runs WHERE thread_id = $1
       UNION ALL SELECT metadata::text FROM "${store.schema}".crons WHERE thread_id = $1
       UNION ALL SELECT value::text FROM "${store.schema}".store_items WHERE key = $2`,
      [threadId, key],
    );
    return rows.map((row) => row.text).join("");
  } finally {
    await client.end();
  }
}

async function runEcho(server: RunningGantry, message: string): Promise<string> {
  const client = sdkClient(server.url);
  const { thread_id } = await client.threads.create();
  await client.runs.wait(thread_id, "echo", { input: { messages: [message] } });
  return thread_id;
}

export function describeEncryptionE2E(label: string, open: OpenStore): void {
  describe(`encryption at rest with LANGGRAPH_AES_KEY (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    const secret = { plain: `plain-${randomUUID()}`, first: `first-${randomUUID()}`, second: `second-${randomUUID()}` };
    const threads = { plain: "", first: "", second: "" };

    beforeAll(async () => {
      store = await open();
      for (const [phase, env] of [
        ["plain", {}],
        ["first", { LANGGRAPH_AES_KEY: FIRST_KEY }],
      ] as const) {
        const running = await store.start(GRAPHS_CONFIG, env);
        try {
          threads[phase] = await runEcho(running, secret[phase]);
        } finally {
          await running.stop();
        }
      }
      server = await store.start(GRAPHS_CONFIG, { LANGGRAPH_AES_KEY: SECOND_KEY, GANTRY_AES_PREVIOUS_KEYS: FIRST_KEY });
      threads.second = await runEcho(server, secret.second);
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    it("stores no plaintext of an encrypted thread's state in its checkpoints and writes", async () => {
      for (const phase of ["first", "second"] as const) {
        const blobs = await checkpointBlobs(store, threads[phase]);
        expect(sealedBlobs(blobs).length).toBeGreaterThan(0);
        for (const blob of blobs) expect(blob.includes(secret[phase])).toBe(false);
      }
    });

    it("finds the plaintext of state written before a key was set, which the same read would show", async () => {
      const blobs = await checkpointBlobs(store, threads.plain);
      expect(blobs.some((blob) => blob.includes(secret.plain))).toBe(true);
      expect(sealedBlobs(blobs)).toEqual([]);
    });

    it("seals each blob under the key current when it was written, named in the blob", async () => {
      for (const [phase, key] of [
        ["first", FIRST_KEY],
        ["second", SECOND_KEY],
      ] as const) {
        for (const blob of sealedBlobs(await checkpointBlobs(store, threads[phase]))) {
          expect(blob.subarray(0, 4)).toEqual(AES_MARKER);
          expect(blob.subarray(4, 8)).toEqual(keyIdOf(key));
        }
      }
    });

    it("reads every thread's state back: written with no key, with the retired key, and with the current one", async () => {
      const client = sdkClient(server.url);
      for (const phase of ["plain", "first", "second"] as const) {
        const state = await client.threads.getState<{ messages: string[]; reply: string }>(threads[phase]);
        expect(state.values).toMatchObject({ messages: [secret[phase]], reply: secret[phase] });
      }
    });

    it("continues a thread written before the key, sealing what it adds", async () => {
      const client = sdkClient(server.url);
      const more = `more-${randomUUID()}`;
      await client.runs.wait(threads.plain, "echo", { input: { messages: [more] } });
      // One history holds both: the plaintext checkpoints and the sealed ones after them.
      const history = await client.threads.getHistory<{ reply?: string }>(threads.plain, { limit: 20 });
      expect(history[0]!.values.reply).toBe(more);
      expect(history.some((state) => state.values.reply === secret.plain)).toBe(true);
      const blobs = await checkpointBlobs(store, threads.plain);
      expect(blobs.some((blob) => blob.includes(more))).toBe(false);
      expect(sealedBlobs(blobs).length).toBeGreaterThan(0);
    });

    it("fails a read, rather than answering wrong, once the key that sealed a thread is gone", async () => {
      await server.stop();
      server = await store.start(GRAPHS_CONFIG, { LANGGRAPH_AES_KEY: SECOND_KEY });
      const client = sdkClient(server.url);
      await expect(client.threads.getState(threads.first)).rejects.toThrow(/HTTP 5\d\d/);
      const state = await client.threads.getState<{ reply: string }>(threads.second);
      expect(state.values.reply).toBe(secret.second);
    });
  });

  describe(`encryption at rest with a custom module (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    const secret = `tenant-${randomUUID()}`;
    let threadId = "";

    beforeAll(async () => {
      store = await open();
      server = await store.start(fixture("encryption", "langgraph.json"));
      threadId = await runEcho(server, secret);
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    it("stores what the module's encryptBlob returned, and no plaintext", async () => {
      const blobs = await checkpointBlobs(store, threadId);
      const sealed = sealedBlobs(blobs);
      expect(sealed.length).toBeGreaterThan(0);
      for (const blob of sealed) expect(blob.subarray(0, CUSTOM_MARKER.length)).toEqual(CUSTOM_MARKER);
      for (const blob of blobs) expect(blob.includes(secret)).toBe(false);
    });

    it("reads the state back through the module's decryptBlob", async () => {
      const state = await sdkClient(server.url).threads.getState<{ reply: string }>(threadId);
      expect(state.values.reply).toBe(secret);
    });
  });

  describe(`LANGGRAPH_AES_JSON_KEYS (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    const secret = { thread: `meta-${randomUUID()}`, item: `item-${randomUUID()}`, run: `run-${randomUUID()}`, cron: `cron-${randomUUID()}` };
    const team = `team-${randomUUID()}`;
    const itemKey = `key-${randomUUID()}`;
    let threadId = "";

    beforeAll(async () => {
      store = await open();
      server = await store.start(GRAPHS_CONFIG, {
        LANGGRAPH_AES_KEY: FIRST_KEY,
        LANGGRAPH_AES_JSON_KEYS: "api_key, token",
        GANTRY_AES_STORE_CLEAR_KEYS: "note",
      });
      const client = sdkClient(server.url);
      ({ thread_id: threadId } = await client.threads.create({ metadata: { api_key: secret.thread, team } }));
      await client.store.putItem(["tenants", "a"], itemKey, { token: secret.item, note: "kept plain" });
      await client.runs.wait(threadId, "echo", { input: { messages: ["hi"] }, metadata: { api_key: secret.run, team } });
      await client.crons.createForThread(threadId, "echo", { schedule: "0 0 1 1 *", metadata: { api_key: secret.cron, team } });
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    it("stores the named keys sealed and the others plain, in thread, run and cron metadata and store values", async () => {
      const stored = await storedJson(store, threadId, itemKey);
      for (const value of Object.values(secret)) expect(stored).not.toContain(value);
      expect(stored).toContain(team);
      expect(stored).toContain("kept plain");
    });

    it("answers the named keys decrypted", async () => {
      const client = sdkClient(server.url);
      expect((await client.threads.get(threadId)).metadata).toMatchObject({ api_key: secret.thread, team });
      const [run] = await client.runs.list(threadId);
      expect(run?.metadata).toMatchObject({ api_key: secret.run, team });
      const [cron] = await client.crons.search({ threadId });
      expect(cron?.metadata).toMatchObject({ api_key: secret.cron, team });
      expect((await client.store.getItem(["tenants", "a"], itemKey))?.value).toEqual({ token: secret.item, note: "kept plain" });
      const { items } = await client.store.searchItems(["tenants"], { filter: { note: "kept plain" } });
      expect(items.map((item) => item.value)).toEqual([{ token: secret.item, note: "kept plain" }]);
    });

    it("searches on the plain keys, and on a sealed key finds nothing, as the platform documents", async () => {
      const client = sdkClient(server.url);
      expect((await client.threads.search({ metadata: { team } })).map((t) => t.thread_id)).toEqual([threadId]);
      expect(await client.threads.search({ metadata: { api_key: secret.thread } })).toEqual([]);
    });
  });
}
