// Crons through the official SDK's `client.crons` (raw HTTP for what the JS SDK does not send:
// timezone, end_time on create, a null end_time), written once and run on each storage backend.
// Schedules read a clock file the test moves on (GANTRY_CRON_CLOCK_FILE), so one-minute schedules
// fire without waiting a minute; a test knows every scheduler has finished a pass at a clock time
// from the "cron tick" debug line each pass logs. On PostgreSQL two processes share the database,
// so two schedulers race for every occurrence.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client, Cron, Run } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { detailOf, eventually, request, sdkClient } from "./http.js";

/** `tick`, and `tock`, the same graph under a second id: see test/fixtures/crons/src/tick.ts. */
const CRONS_CONFIG = fixture("crons", "langgraph.json");

const own = () => `case-${randomUUID()}`;

/** A clock file a suite's servers read, and the moves a test makes on it. */
interface TestClock {
  file: string;
  set(iso: string): Promise<void>;
}

async function newClock(dir: string, iso: string): Promise<TestClock> {
  const file = join(dir, "clock");
  const clock = { file, set: (at: string) => writeFile(file, at + "\n") };
  await clock.set(iso);
  return clock;
}

function logLines(server: RunningGantry): Array<Record<string, unknown>> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Resolves once every server has logged a finished scheduler pass at clock time `at` or later. */
function everySchedulerPassed(servers: RunningGantry[], at: string): Promise<true> {
  const passed = (s: RunningGantry) => logLines(s).some((l) => l.msg === "cron tick" && typeof l.now === "string" && Date.parse(l.now) >= Date.parse(at));
  return eventually(`every scheduler to finish a pass at ${at}`, async () => (servers.every(passed) ? true : undefined), 20_000);
}

function firedLines(servers: RunningGantry[], cronId: string): Array<Record<string, unknown>> {
  return servers.flatMap((s) => logLines(s).filter((l) => l.msg === "cron fired" && l.cron_id === cronId));
}

async function startServers(store: GantryStore, count: number, clock: TestClock): Promise<RunningGantry[]> {
  const env = { GANTRY_CRON_CLOCK_FILE: clock.file, LOG_LEVEL: "debug", BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" };
  const servers: RunningGantry[] = [];
  // One after the other: a booting `gantry dev` requeues whatever runs it finds running.
  for (let i = 0; i < count; i++) servers.push(await store.start(CRONS_CONFIG, env));
  return servers;
}

export function describeCronsE2E(label: string, open: OpenStore): void {
  describe(`crons API through the SDK (${label})`, () => {
    const T0 = "2030-01-01T10:00:30.000Z";
    let store: GantryStore;
    let server: RunningGantry;
    let client: Client;
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "gantry-cron-clock-"));
      // The clock stays at T0 for this suite: nothing fires, and next run dates are exact.
      const clock = await newClock(dir, T0);
      store = await open();
      server = (await startServers(store, 1, clock))[0]!;
      client = sdkClient(server.url);
    });

    afterAll(async () => {
      await server?.stop();
      await store?.dispose();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("reports crons as on in /info and documents their routes in /openapi.json", async () => {
      expect((await request(server.url, "GET", "/info")).json).toMatchObject({ flags: { crons: true } });
      const openapi = (await request(server.url, "GET", "/openapi.json")).json as { paths: Record<string, Record<string, unknown>> };
      expect(Object.keys(openapi.paths["/runs/crons"]!)).toEqual(["post"]);
      expect(Object.keys(openapi.paths["/threads/{thread_id}/runs/crons"]!)).toEqual(["post"]);
      expect(Object.keys(openapi.paths["/runs/crons/{cron_id}"]!).sort()).toEqual(["delete", "get", "patch"]);
      expect(openapi.paths["/runs/crons/search"]).toHaveProperty("post");
      expect(openapi.paths["/runs/crons/count"]).toHaveProperty("post");
    });

    it("creates a stateless cron with its schedule, payload, metadata and next run date", async () => {
      const assistant = await client.assistants.get("tick");
      const cron = await client.crons.create("tick", {
        schedule: "*/5 * * * *",
        input: { label: "stateless" },
        metadata: { owner: "ops" },
        config: { tags: ["nightly"] },
        durability: "sync",
      });
      expect(cron).toMatchObject({
        assistant_id: assistant.assistant_id,
        thread_id: null,
        on_run_completed: "delete",
        end_time: null,
        schedule: "*/5 * * * *",
        timezone: null,
        user_id: null,
        next_run_date: "2030-01-01T10:05:00.000Z",
        metadata: { owner: "ops" },
        enabled: true,
        payload: { assistant_id: assistant.assistant_id, input: { label: "stateless" }, config: { tags: ["nightly"] }, durability: "sync" },
      });
      expect(Date.parse(cron.created_at)).not.toBeNaN();
      expect((await request(server.url, "GET", `/runs/crons/${cron.cron_id}`)).json).toEqual(cron);
      const kept = await client.crons.create("tick", { schedule: "0 * * * *", onRunCompleted: "keep", enabled: false });
      expect(kept).toMatchObject({ on_run_completed: "keep", enabled: false, next_run_date: "2030-01-01T11:00:00.000Z" });
    });

    it("creates a cron on a thread, and answers 404 for a thread or assistant that does not exist", async () => {
      const thread = await client.threads.create();
      const cron = await client.crons.createForThread(thread.thread_id, "tick", { schedule: "0 9 * * 1-5", multitaskStrategy: "reject" });
      expect(cron).toMatchObject({ thread_id: thread.thread_id, on_run_completed: null, next_run_date: "2030-01-02T09:00:00.000Z" });
      expect(cron.payload).toMatchObject({ multitask_strategy: "reject" });

      const missingThread = randomUUID();
      await expect(client.crons.createForThread(missingThread, "tick", { schedule: "* * * * *" })).rejects.toThrow(/HTTP 404.*Thread .* not found/);
      await expect(client.crons.create(randomUUID(), { schedule: "* * * * *" })).rejects.toThrow(/HTTP 404.*Assistant .* not found/);
    });

    it("reads a schedule in the IANA time zone given on create, and stops it at end_time", async () => {
      const created = await request(server.url, "POST", "/runs/crons", {
        body: { assistant_id: "tick", schedule: "0 9 * * *", timezone: "America/New_York", end_time: "2030-01-03T00:00:00Z" },
      });
      expect(created.status).toBe(200);
      // 9:00 in New York in January is 14:00 UTC.
      expect(created.json).toMatchObject({ timezone: "America/New_York", next_run_date: "2030-01-01T14:00:00.000Z", end_time: "2030-01-03T00:00:00.000Z" });
      const ended = await request(server.url, "POST", "/runs/crons", {
        body: { assistant_id: "tick", schedule: "0 9 * * *", end_time: "2030-01-01T08:00:00" },
      });
      expect(ended.json).toMatchObject({ end_time: "2030-01-01T08:00:00.000Z", next_run_date: null });
    });

    it("updates a cron: schedule, merged metadata, run fields, enabled, and end_time set then cleared", async () => {
      const cron = await client.crons.create("tick", { schedule: "0 * * * *", input: { label: "a" }, metadata: { a: 1, b: 1 } });
      const updated = await client.crons.update(cron.cron_id, {
        schedule: "*/10 * * * *",
        metadata: { b: 2, c: 3 },
        input: { label: "b" },
        endTime: "2030-01-01T10:15:00Z",
      });
      expect(updated).toMatchObject({
        cron_id: cron.cron_id,
        schedule: "*/10 * * * *",
        metadata: { a: 1, b: 2, c: 3 },
        end_time: "2030-01-01T10:15:00.000Z",
        next_run_date: "2030-01-01T10:10:00.000Z",
        payload: { input: { label: "b" } },
        created_at: cron.created_at,
      });
      expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(cron.updated_at));

      const disabled = await client.crons.update(cron.cron_id, { enabled: false, onRunCompleted: "keep" });
      expect(disabled).toMatchObject({ enabled: false, on_run_completed: "keep", schedule: "*/10 * * * *" });

      const shortened = await client.crons.update(cron.cron_id, { endTime: "2030-01-01T10:05:00Z", enabled: true });
      expect(shortened).toMatchObject({ enabled: true, next_run_date: null });
      const cleared = await request(server.url, "PATCH", `/runs/crons/${cron.cron_id}`, { body: { end_time: null } });
      expect(cleared.json).toMatchObject({ end_time: null, next_run_date: "2030-01-01T10:10:00.000Z" });
    });

    it("searches crons by assistant, thread and enabled with sort, paging and select, and counts them", async () => {
      const marker = own();
      const assistant = await client.assistants.create({ graphId: "tick", metadata: { marker } });
      const thread = await client.threads.create();
      const hourly = await client.crons.create(assistant.assistant_id, { schedule: "0 * * * *" });
      const daily = await client.crons.create(assistant.assistant_id, { schedule: "0 0 * * *", enabled: false });
      const onThread = await client.crons.createForThread(thread.thread_id, assistant.assistant_id, { schedule: "*/2 * * * *" });

      const ids = (crons: Cron[]) => crons.map((c) => c.cron_id);
      expect(ids(await client.crons.search({ assistantId: assistant.assistant_id, sortBy: "next_run_date", sortOrder: "asc" }))).toEqual([
        onThread.cron_id,
        hourly.cron_id,
        daily.cron_id,
      ]);
      expect(ids(await client.crons.search({ assistantId: assistant.assistant_id, sortBy: "created_at", sortOrder: "desc", limit: 2, offset: 1 }))).toEqual([
        daily.cron_id,
        hourly.cron_id,
      ]);
      expect(ids(await client.crons.search({ threadId: thread.thread_id }))).toEqual([onThread.cron_id]);
      expect(ids(await client.crons.search({ assistantId: assistant.assistant_id, enabled: false }))).toEqual([daily.cron_id]);

      const selected = await client.crons.search({ threadId: thread.thread_id, select: ["cron_id", "next_run_date", "now"] });
      expect(selected).toEqual([{ cron_id: onThread.cron_id, next_run_date: "2030-01-01T10:02:00.000Z", now: T0 }]);

      const page = await request(server.url, "POST", "/runs/crons/search", { body: { assistant_id: assistant.assistant_id, limit: 1 } });
      expect(page.headers.get("x-pagination-total")).toBe("3");
      expect(page.headers.get("x-pagination-next")).toBe("1");

      expect(await client.crons.count({ assistantId: assistant.assistant_id })).toBe(3);
      expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);
      expect(await client.crons.count({ assistantId: assistant.assistant_id, threadId: thread.thread_id })).toBe(1);
    });

    it("deletes a cron once: afterwards it is 404 to get, update and delete", async () => {
      const cron = await client.crons.create("tick", { schedule: "0 * * * *" });
      await client.crons.delete(cron.cron_id);
      expect((await request(server.url, "GET", `/runs/crons/${cron.cron_id}`)).status).toBe(404);
      await expect(client.crons.update(cron.cron_id, { enabled: false })).rejects.toThrow(/HTTP 404.*Cron .* not found/);
      await expect(client.crons.delete(cron.cron_id)).rejects.toThrow(/HTTP 404/);
    });

    it("deletes a thread's crons with the thread", async () => {
      const thread = await client.threads.create();
      const cron = await client.crons.createForThread(thread.thread_id, "tick", { schedule: "0 * * * *" });
      await client.threads.delete(thread.thread_id);
      expect((await request(server.url, "GET", `/runs/crons/${cron.cron_id}`)).status).toBe(404);
    });

    it("refuses bad input with a 422 that names the problem", async () => {
      const thread = await client.threads.create();
      const tickThread = await client.threads.create({ graphId: "tick" });
      const cron = await client.crons.create("tick", { schedule: "0 * * * *" });
      const cases: Array<[string, string, unknown, RegExp]> = [
        ["POST", "/runs/crons", { assistant_id: "tick", schedule: "61 * * * *" }, /Field 'schedule' is not a valid cron expression \('61 \* \* \* \*'\)/],
        ["POST", "/runs/crons", { assistant_id: "tick", schedule: "0 0 30 2 *" }, /Field 'schedule' never fires/],
        ["POST", "/runs/crons", { assistant_id: "tick", schedule: "* * * * * *" }, /five fields/],
        ["POST", "/runs/crons", { assistant_id: "tick", schedule: "" }, /Field 'schedule'/],
        ["POST", "/runs/crons", { assistant_id: "tick" }, /Field 'schedule'/],
        [
          "POST",
          "/runs/crons",
          { assistant_id: "tick", schedule: "* * * * *", timezone: "Mars/Olympus" },
          /Field 'timezone' is not an IANA time zone name: 'Mars\/Olympus'/,
        ],
        ["POST", "/runs/crons", { assistant_id: "tick", schedule: "* * * * *", end_time: "tomorrow" }, /Field 'end_time'/],
        ["POST", "/runs/crons", { assistant_id: "tick", schedule: "* * * * *", on_run_completed: "archive" }, /Field 'on_run_completed'/],
        [
          "POST",
          "/runs/crons",
          { assistant_id: "tick", schedule: "* * * * *", webhook: "http://127.0.0.1:9/hook" },
          /Field 'webhook' is refused: 127.0.0.1 is a loopback address/,
        ],
        [
          "POST",
          `/threads/${thread.thread_id}/runs/crons`,
          { assistant_id: "tick", schedule: "* * * * *", on_run_completed: "keep" },
          /'on_run_completed' applies to stateless crons only/,
        ],
        [
          "POST",
          `/threads/${tickThread.thread_id}/runs/crons`,
          { assistant_id: "tock", schedule: "* * * * *" },
          /belongs to graph 'tick', but assistant .* runs graph 'tock'/,
        ],
        ["PATCH", `/runs/crons/${cron.cron_id}`, { schedule: "0 25 * * *" }, /Field 'schedule' is not a valid cron expression/],
        ["PATCH", `/runs/crons/${cron.cron_id}`, { timezone: "Nowhere/Land" }, /Field 'timezone'/],
        ["PATCH", "/runs/crons/not-a-uuid", { enabled: true }, /Path parameter 'cron_id' must be a UUID/],
        ["POST", "/runs/crons/search", { limit: 0 }, /Field 'limit'/],
        ["POST", "/runs/crons/search", { sort_by: "schedule" }, /Field 'sort_by'/],
        ["POST", "/runs/crons/search", { select: ["cron_id", "secret"] }, /Field 'select\[1\]'/],
        ["POST", "/runs/crons/count", { thread_id: "nope" }, /Field 'thread_id'/],
      ];
      for (const [method, path, body, expected] of cases) {
        const response = await request(server.url, method, path, { body });
        expect({ path, body, status: response.status }).toEqual({ path, body, status: 422 });
        expect(detailOf(response)).toMatch(expected);
      }
      expect((await request(server.url, "GET", `/runs/crons/${cron.cron_id}`)).json).toMatchObject({ schedule: "0 * * * *", timezone: null });
    });
  });

  describe(`crons firing (${label})`, () => {
    let store: GantryStore;
    let servers: RunningGantry[];
    let client: Client;
    let clock: TestClock;
    let dir: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "gantry-cron-clock-"));
      clock = await newClock(dir, "2030-01-01T00:00:00.000Z");
      store = await open();
      servers = await startServers(store, store.backend === "postgres" ? 2 : 1, clock);
      client = sdkClient(servers[0]!.url);
    });

    afterAll(async () => {
      await Promise.all((servers ?? []).map((s) => s.stop()));
      await store?.dispose();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** Moves the clock and waits until every scheduler has finished a pass at the new time. */
    async function moveClockTo(at: string): Promise<void> {
      await clock.set(at);
      await everySchedulerPassed(servers, at);
    }

    async function finishedRuns(threadId: string, count: number): Promise<Run[]> {
      return eventually(`${count} finished runs on thread ${threadId}`, async () => {
        const runs = await client.runs.list(threadId, { limit: 100 });
        return runs.length === count && runs.every((r) => r.status === "success") ? runs : undefined;
      });
    }

    /** The runs a `tick` cron made, as recorded in the store: one item per run, with its thread. */
    async function ticks(tickLabel: string) {
      return (await client.store.searchItems(["cron-ticks", tickLabel], { limit: 100 })).items;
    }

    function tickThread(item: { value: Record<string, unknown> }): string {
      return item.value.thread_id as string;
    }

    it(`fires a one-minute cron exactly once per occurrence with ${label === "postgres" ? "two schedulers on one database" : "its scheduler"}, and once for occurrences missed`, async () => {
      await moveClockTo("2030-01-01T10:00:30.000Z");
      const thread = await client.threads.create();
      const cron = await client.crons.createForThread(thread.thread_id, "tick", {
        schedule: "* * * * *",
        input: { label: own() },
        metadata: { purpose: "e2e" },
      });
      expect(cron.next_run_date).toBe("2030-01-01T10:01:00.000Z");

      await moveClockTo("2030-01-01T10:01:00.000Z");
      const first = await finishedRuns(thread.thread_id, 1);
      expect(first[0]!.metadata).toMatchObject({ cron_id: cron.cron_id, purpose: "e2e" });

      await moveClockTo("2030-01-01T10:01:40.000Z");
      expect(await client.runs.list(thread.thread_id)).toHaveLength(1);

      await moveClockTo("2030-01-01T10:02:05.000Z");
      await finishedRuns(thread.thread_id, 2);
      const [afterTwo] = await client.crons.search({ threadId: thread.thread_id });
      expect(afterTwo!.next_run_date).toBe("2030-01-01T10:03:00.000Z");

      // The schedulers were "down" from 10:03 to 10:07:30: the cron fires once, not five times.
      await moveClockTo("2030-01-01T10:07:30.000Z");
      const runs = await finishedRuns(thread.thread_id, 3);
      expect(new Set(runs.map((r) => r.run_id)).size).toBe(3);
      expect((await client.threads.getState<{ ticks: number }>(thread.thread_id)).values.ticks).toBe(3);
      const [afterMiss] = await client.crons.search({ threadId: thread.thread_id });
      expect(afterMiss!.next_run_date).toBe("2030-01-01T10:08:00.000Z");

      expect(
        firedLines(servers, cron.cron_id)
          .map((l) => l.scheduled_for)
          .sort(),
      ).toEqual(["2030-01-01T10:01:00.000Z", "2030-01-01T10:02:00.000Z", "2030-01-01T10:03:00.000Z"]);
      const missed = servers
        .flatMap((s) => logLines(s))
        .filter((l) => l.msg === "cron missed occurrences while no scheduler ran; firing once for them" && l.cron_id === cron.cron_id);
      expect(missed).toEqual([expect.objectContaining({ scheduled_for: "2030-01-01T10:03:00.000Z", missed: 4 })]);
      await client.crons.delete(cron.cron_id);
    });

    it("stops firing at end_time", async () => {
      await moveClockTo("2030-02-01T10:00:30.000Z");
      const thread = await client.threads.create();
      const cron = await client.crons.createForThread(thread.thread_id, "tick", { schedule: "* * * * *", input: { label: own() } });
      const ending = await client.crons.update(cron.cron_id, { endTime: "2030-02-01T10:01:30Z" });
      expect(ending.next_run_date).toBe("2030-02-01T10:01:00.000Z");

      await moveClockTo("2030-02-01T10:01:00.000Z");
      await finishedRuns(thread.thread_id, 1);
      const [ended] = await client.crons.search({ threadId: thread.thread_id });
      expect(ended!.next_run_date).toBeNull();

      await moveClockTo("2030-02-01T10:05:00.000Z");
      expect(await client.runs.list(thread.thread_id)).toHaveLength(1);
      expect(firedLines(servers, cron.cron_id)).toHaveLength(1);
    });

    it("does not fire a disabled cron, and fires from the next occurrence once it is enabled again", async () => {
      await moveClockTo("2030-03-01T10:00:30.000Z");
      const thread = await client.threads.create();
      const cron = await client.crons.createForThread(thread.thread_id, "tick", { schedule: "* * * * *", input: { label: own() }, enabled: false });

      await moveClockTo("2030-03-01T10:03:00.000Z");
      expect(await client.runs.list(thread.thread_id)).toHaveLength(0);

      const enabled = await client.crons.update(cron.cron_id, { enabled: true });
      expect(enabled.next_run_date).toBe("2030-03-01T10:04:00.000Z");
      await moveClockTo("2030-03-01T10:04:00.000Z");
      await finishedRuns(thread.thread_id, 1);
      await client.crons.delete(cron.cron_id);
    });

    it("creates its runs under the cron's multitask strategy: with reject, a busy thread spends the occurrence and says so in the log", async () => {
      await moveClockTo("2030-05-01T10:00:30.000Z");
      const thread = await client.threads.create();
      // A run due in an hour keeps the thread busy without running.
      const waiting = await client.runs.create(thread.thread_id, "tick", { input: { label: own() }, afterSeconds: 3600 });
      const cron = await client.crons.createForThread(thread.thread_id, "tick", {
        schedule: "* * * * *",
        input: { label: own() },
        multitaskStrategy: "reject",
      });
      expect(cron.payload).toMatchObject({ multitask_strategy: "reject" });

      await moveClockTo("2030-05-01T10:01:00.000Z");
      const skipped = servers.flatMap((s) => logLines(s)).filter((l) => l.msg === "cron occurrence skipped: its run was refused" && l.cron_id === cron.cron_id);
      expect(skipped).toEqual([expect.objectContaining({ scheduled_for: "2030-05-01T10:01:00.000Z", detail: expect.stringContaining(thread.thread_id) })]);
      expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([waiting.run_id]);
      const [after] = await client.crons.search({ threadId: thread.thread_id });
      expect(after!.next_run_date).toBe("2030-05-01T10:02:00.000Z");

      await client.crons.delete(cron.cron_id);
      await client.runs.cancel(thread.thread_id, waiting.run_id, true);
    });

    it("deletes a stateless cron run's thread when it ends, unless on_run_completed is keep", async () => {
      await moveClockTo("2030-04-01T10:00:30.000Z");
      const deletingLabel = own();
      const keepingLabel = own();
      const deleting = await client.crons.create("tick", { schedule: "* * * * *", input: { label: deletingLabel } });
      const keeping = await client.crons.create("tick", {
        schedule: "* * * * *",
        input: { label: keepingLabel },
        onRunCompleted: "keep",
        metadata: { kept: true },
      });

      await moveClockTo("2030-04-01T10:01:00.000Z");
      const [deletedTick] = await eventually("the deleting cron's run to record its tick", async () => {
        const found = await ticks(deletingLabel);
        return found.length > 0 ? found : undefined;
      });
      const deletedThread = tickThread(deletedTick!);
      await eventually(`thread ${deletedThread} to be deleted`, async () => {
        const response = await request(servers[0]!.url, "GET", `/threads/${deletedThread}`);
        return response.status === 404 ? true : undefined;
      });

      const [keptTick] = await eventually("the keeping cron's run to record its tick", async () => {
        const found = await ticks(keepingLabel);
        return found.length > 0 ? found : undefined;
      });
      const keptThread = tickThread(keptTick!);
      const [run] = await finishedRuns(keptThread, 1);
      expect(run!.metadata).toMatchObject({ cron_id: keeping.cron_id, kept: true });
      expect((await client.threads.get(keptThread)).metadata).toMatchObject({ cron_id: keeping.cron_id, kept: true });

      // One tick each: the occurrence fired once, whichever scheduler took it.
      await moveClockTo("2030-04-01T10:01:30.000Z");
      expect(await ticks(deletingLabel)).toHaveLength(1);
      expect(await ticks(keepingLabel)).toHaveLength(1);
      await client.crons.delete(deleting.cron_id);
      await client.crons.delete(keeping.cron_id);
    });

    // Last: its clock is the latest, and a pass logged at a later time would satisfy an earlier move's wait.
    it(`creates the runs of many crons due at once, each occurrence once ${label === "postgres" ? "across two schedulers" : "by its scheduler"}, thread crons among them`, async () => {
      await moveClockTo("2030-06-01T10:00:30.000Z");
      const label = own();
      // More than a claim chunk holds, so the schedulers' chunks meet and overlap.
      const stateless = await Promise.all(
        Array.from({ length: 30 }, () => client.crons.create("tick", { schedule: "* * * * *", input: { label }, onRunCompleted: "keep" })),
      );
      const threads = await Promise.all([0, 1].map(() => client.threads.create()));
      const onThreads = await Promise.all(threads.map((t) => client.crons.createForThread(t.thread_id, "tick", { schedule: "* * * * *", input: { label } })));
      const all = [...stateless, ...onThreads];

      await moveClockTo("2030-06-01T10:01:00.000Z");
      expect(all.map((c) => firedLines(servers, c.cron_id).length)).toEqual(all.map(() => 1));
      const recorded = await eventually("every run to record its tick", async () => {
        const found = await ticks(label);
        return found.length >= all.length ? found : undefined;
      });
      // One run per cron, each on a thread of its own: the thread crons' on theirs.
      expect(new Set(recorded.map(tickThread)).size).toBe(all.length);
      expect(recorded.map(tickThread)).toEqual(expect.arrayContaining(threads.map((t) => t.thread_id)));
      const firstRun = firedLines(servers, stateless[0]!.cron_id)[0]!;
      expect((await client.runs.get(firstRun.thread_id as string, firstRun.run_id as string)).metadata).toMatchObject({ cron_id: stateless[0]!.cron_id });

      await moveClockTo("2030-06-01T10:01:40.000Z");
      expect(await ticks(label)).toHaveLength(all.length);
      expect(all.map((c) => firedLines(servers, c.cron_id).length)).toEqual(all.map(() => 1));
      await Promise.all(all.map((c) => client.crons.delete(c.cron_id)));
    });
  });
}
