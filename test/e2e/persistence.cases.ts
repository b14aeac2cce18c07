// What survives a restart: a server is stopped and another started on the same storage, and
// everything created through the SDK is there as it was, without duplicated system assistants.
import type { Assistant, AssistantVersion, Thread } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { GRAPHS_CONFIG } from "./fixture-paths.js";
import { request, sdkClient } from "./http.js";

interface Before {
  assistant: Assistant;
  versions: AssistantVersion[];
  thread: Thread;
  threadTtl: unknown;
  deletedThreadId: string;
  systemAssistants: Assistant[];
}

export function describePersistenceE2E(label: string, open: OpenStore): void {
  describe(`a restart on the same storage (${label})`, () => {
    let store: GantryStore;
    let server: RunningGantry;
    let before: Before;

    beforeAll(async () => {
      store = await open();
      const first = await store.start(GRAPHS_CONFIG);
      try {
        const client = sdkClient(first.url);
        const created = await client.assistants.create({ graphId: "echo", name: "v1", metadata: { stage: "one" } });
        const assistant = await client.assistants.update(created.assistant_id, { name: "v2", metadata: { stage: "two" } });
        const { thread_id } = await client.threads.create({ metadata: { topic: "persistence" }, ttl: 60 });
        const thread = await client.threads.get(thread_id);
        const deleted = await client.threads.create();
        await client.threads.delete(deleted.thread_id);
        before = {
          assistant,
          versions: await client.assistants.getVersions(assistant.assistant_id),
          thread,
          threadTtl: (await request(first.url, "GET", `/threads/${thread_id}?include=ttl`)).json,
          deletedThreadId: deleted.thread_id,
          systemAssistants: await client.assistants.search({ metadata: { created_by: "system" }, limit: 100 }),
        };
      } finally {
        await first.stop();
      }
      server = await store.start(GRAPHS_CONFIG);
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
    });

    it("keeps an assistant at its current version, with every earlier version", async () => {
      const client = sdkClient(server.url);
      expect(await client.assistants.get(before.assistant.assistant_id)).toEqual(before.assistant);
      expect(await client.assistants.getVersions(before.assistant.assistant_id)).toEqual(before.versions);
      expect(before.versions.map((v) => v.version)).toEqual([2, 1]);
    });

    it("keeps threads with their metadata and ttl", async () => {
      const client = sdkClient(server.url);
      expect(await client.threads.get(before.thread.thread_id)).toEqual(before.thread);
      expect((await request(server.url, "GET", `/threads/${before.thread.thread_id}?include=ttl`)).json).toEqual(before.threadTtl);
    });

    it("keeps a deleted thread deleted", async () => {
      await expect(sdkClient(server.url).threads.get(before.deletedThreadId)).rejects.toThrow(/HTTP 404/);
    });

    it("keeps one system assistant per graph, unchanged, instead of creating them again", async () => {
      const client = sdkClient(server.url);
      const system = await client.assistants.search({ metadata: { created_by: "system" }, limit: 100 });
      const byId = (list: Assistant[]) => [...list].sort((a, b) => a.assistant_id.localeCompare(b.assistant_id));
      expect(byId(system)).toEqual(byId(before.systemAssistants));
      expect(await client.assistants.count({ metadata: { created_by: "system" } })).toBe(5);
    });
  });
}
