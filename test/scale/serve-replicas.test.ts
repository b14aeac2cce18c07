// Replicas of `gantry serve` on one PostgreSQL and one Redis behave as one server, through the
// official SDK: a run created on A is streamed, joined (with Last-Event-ID) and cancelled through B;
// a thread followed on B shows runs created on A; a worker replica serves only /ok; 100 queued runs across two workers each run
// once, in order per thread; a cron fires once per occurrence with two schedulers, and so do
// stateless crons due at once, whose runs are created a chunk at a time.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, request, sdkClient } from "../e2e/http.js";
import { collect, runReaches, threadReaches } from "../e2e/runs-support.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgresAndRedis } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";

const CLOCK_START = "2030-01-01T10:00:30.000Z";

function logLines(server: RunningGantry): Array<Record<string, unknown>> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

await describeWithPostgresAndRedis("gantry serve: replicas behave as one server", () => {
  let cluster: ServeCluster;
  let dir: string;
  let clockFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-serve-replicas-"));
    clockFile = join(dir, "clock");
    await writeFile(clockFile, CLOCK_START + "\n");
    cluster = await openServeCluster({ GANTRY_CRON_CLOCK_FILE: clockFile, LOG_LEVEL: "debug", BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" });
  });

  afterAll(async () => {
    await cluster?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe("an API replica beside a full replica and a worker replica", () => {
    let a: RunningGantry;
    let b: RunningGantry;
    let w: RunningGantry;
    let onA: Client;
    let onB: Client;

    beforeAll(async () => {
      // B only serves HTTP, so every run executes elsewhere: on A, or on the worker-only W.
      [a, b, w] = await Promise.all([cluster.start("all"), cluster.start("api"), cluster.start("worker")]);
      onA = sdkClient(a.url);
      onB = sdkClient(b.url);
    });

    afterAll(async () => {
      await cluster.stopAll();
    });

    it("streams, joins and resumes on B a run created and executed on A", async () => {
      const thread = await onA.threads.create();
      const run = await onA.runs.create(thread.thread_id, "slow", { input: { ms: 300, label: "across" }, streamMode: ["values", "updates"] });
      const streamed = await collect(onB.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: ["values", "updates"] }));
      expect(streamed[0]).toMatchObject({ event: "metadata", data: { run_id: run.run_id, attempt: 1 } });
      expect(streamed.at(-1)).toMatchObject({ event: "values", data: { log: ["across"] } });
      expect(streamed.map((f) => f.event)).toContain("updates");

      // Every event of the run's log is shown here, so the ids are 0, 1, 2, … with no gap.
      expect(streamed.map((f) => f.id)).toEqual(streamed.map((_, i) => String(i)));
      const rest = await collect(onA.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: streamed[0]!.id!, streamMode: ["values", "updates"] }));
      expect(rest.map((f) => f.id)).toEqual(streamed.slice(1).map((f) => f.id));
      expect(await onB.runs.join(thread.thread_id, run.run_id)).toMatchObject({ log: ["across"] });
      expect(a.output() + w.output()).toContain(`"run_id":"${run.run_id}"`);
      expect(b.output()).not.toContain('"msg":"run finished"');
    });

    // The reference's case on the Redis log: B only serves HTTP, so the run writes its log elsewhere.
    it("subgraphs › human in the loop – no modification: stream event ids count from 0", async () => {
      const thread = await onB.threads.create();
      const input = { record_file: join(dir, `record-${randomUUID()}`), pause_ms: 0 };
      const chunks = await collect(onB.runs.stream(thread.thread_id, "steps", { input, interruptBefore: ["step2"], streamMode: "values" }));
      expect(chunks.map(({ event, id }) => [event, id])).toEqual([
        ["metadata", "0"],
        ["values", "1"],
        ["values", "2"],
        ["values", "3"],
      ]);
      expect(chunks.at(-1)!.data).toEqual({ __interrupt__: [] });
    });

    it("resumes a running run's stream on A after the event B numbered, missing and repeating nothing", async () => {
      const thread = await onA.threads.create();
      const hold = join(dir, `hold-${randomUUID()}`);
      const input = { record_file: join(dir, `record-${randomUUID()}`), pause_ms: 0, hold_file: hold };
      const run = await onA.runs.create(thread.thread_id, "steps", { input, streamMode: "values" });
      // The run waits for the hold file before its first step: B has its metadata and input values, no more.
      const reading = new AbortController();
      const seen = [];
      for await (const frame of onB.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", signal: reading.signal })) {
        seen.push(frame);
        if (seen.length === 2) break;
      }
      reading.abort();
      expect(seen.map(({ event, id }) => [event, id])).toEqual([
        ["metadata", "0"],
        ["values", "1"],
      ]);
      const resumed = collect(onA.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: seen[1]!.id! }));
      await runReaches(onA, thread.thread_id, run.run_id, "running");
      await writeFile(hold, "");
      const rest = await resumed;
      expect(rest.map((f) => f.id)).toEqual(["2", "3", "4", "5", "6"]);
      expect(rest.at(-1)!.data).toMatchObject({ done: ["step1", "step2", "step3", "step4", "step5"] });
      expect(await collect(onB.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }))).toEqual([...seen, ...rest]);
    });

    it("stops through B a run executing on another replica", async () => {
      const thread = await onA.threads.create();
      const run = await onA.runs.create(thread.thread_id, "slow", { input: { ms: 60_000, label: "cancelled" } });
      await runReaches(onB, thread.thread_id, run.run_id, "running");
      await onB.runs.cancel(thread.thread_id, run.run_id, true, "interrupt");
      expect((await onB.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
      await threadReaches(onA, thread.thread_id, "idle");
    });

    it("shows on B's thread stream the runs created on A", async () => {
      const thread = await onA.threads.create();
      // The route opens the thread's log before it answers: once B's response arrived, runs are followed.
      let markAttached!: () => void;
      const attached = new Promise<void>((done) => (markAttached = done));
      const follower = new Client({
        apiUrl: b.url,
        callerOptions: {
          maxRetries: 0,
          fetch: async (input: string, init?: RequestInit) => {
            const response = await fetch(input, init);
            markAttached();
            return response;
          },
        },
      });
      const controller = new AbortController();
      const frames: Array<{ event: string; data: unknown }> = [];
      const following = (async () => {
        for await (const frame of follower.threads.joinStream(thread.thread_id, { signal: controller.signal })) {
          frames.push(frame);
          if (frame.event === "lifecycle" && (frame.data as { status?: string }).status === "success") controller.abort();
        }
      })().catch((err: unknown) => {
        if (!controller.signal.aborted) throw err;
      });
      await attached;
      const run = await onA.runs.create(thread.thread_id, "slow", { input: { ms: 1, label: "followed" } });
      await following;
      const lifecycle = frames.filter((f) => f.event === "lifecycle").map((f) => f.data);
      expect(lifecycle).toEqual([
        { run_id: run.run_id, status: "running" },
        { run_id: run.run_id, status: "success" },
      ]);
      expect(frames.some((f) => f.event === "values")).toBe(true);
    });

    it("answers /ok from the process alone, and /ok?check_db=1 with the database and Redis checked", async () => {
      for (const replica of [a, b, w]) {
        expect(await request(replica.url, "GET", "/ok")).toMatchObject({ status: 200, json: { ok: true } });
        const response = await request(replica.url, "GET", "/ok?check_db=1");
        expect(response).toMatchObject({ status: 200, json: { ok: true, services: { database: "ok", redis: "ok" } } });
      }
    });

    it("serves only /ok on a worker replica", async () => {
      expect((await request(w.url, "GET", "/assistants/steps")).status).toBe(404);
      expect((await request(a.url, "GET", "/assistants/steps")).status).toBe(200);
    });
  });

  describe("two worker replicas", () => {
    let a: RunningGantry;
    let b: RunningGantry;

    beforeAll(async () => {
      [a, b] = await Promise.all([cluster.start("all"), cluster.start("all")]);
    });

    afterAll(async () => {
      await cluster.stopAll();
    });

    it("runs each of 100 queued runs exactly once, in order on each thread", async () => {
      const clients = [sdkClient(a.url), sdkClient(b.url)];
      const threads = await Promise.all(Array.from({ length: 10 }, () => clients[0]!.threads.create()));
      const expected = new Map<string, string[]>(threads.map((t) => [t.thread_id, []]));
      const runIds: string[] = [];
      // Threads in parallel; each thread's runs one after the other, alternating replicas.
      await Promise.all(
        threads.map(async (thread, t) => {
          for (let i = 0; i < 10; i++) {
            const label = `run-${t}-${i}`;
            const run = await clients[(t + i) % 2]!.runs.create(thread.thread_id, "slow", { input: { ms: 1, label }, multitaskStrategy: "enqueue" });
            expected.get(thread.thread_id)!.push(label);
            runIds.push(run.run_id);
          }
        }),
      );
      for (const thread of threads) {
        const done = await threadReaches(clients[0]!, thread.thread_id, "idle", 60_000);
        expect((done.values as { log: string[] }).log).toEqual(expected.get(thread.thread_id));
      }
      const rows = await cluster.query<{ status: string; attempt: number }>("SELECT status, attempt FROM runs WHERE run_id = ANY($1::text[])", [runIds]);
      expect(rows).toHaveLength(100);
      expect(rows.every((r) => r.status === "success" && r.attempt === 1)).toBe(true);
      const finishedBy = [a, b].map((replica) =>
        logLines(replica)
          .filter((l) => l.msg === "run finished" && runIds.includes(l.run_id as string))
          .map((l) => l.run_id),
      );
      expect(finishedBy.flat().sort()).toEqual([...runIds].sort());
      expect(finishedBy.every((ids) => ids.length > 0)).toBe(true);
    }, 90_000);

    it("fires a one-minute cron exactly once per occurrence with two schedulers", async () => {
      const client = sdkClient(a.url);
      const thread = await client.threads.create();
      const label = `tick-${randomUUID()}`;
      const cron = await client.crons.createForThread(thread.thread_id, "tick", { schedule: "* * * * *", input: { label } });
      const minutes = ["2030-01-01T10:01:00.000Z", "2030-01-01T10:02:00.000Z", "2030-01-01T10:03:00.000Z"];
      for (const [i, at] of minutes.entries()) {
        await writeFile(clockFile, at + "\n");
        await eventually(
          `both schedulers to pass ${at}`,
          async () => ([a, b].every((s) => logLines(s).some((l) => l.msg === "cron tick" && Date.parse(l.now as string) >= Date.parse(at))) ? true : undefined),
          20_000,
        );
        await eventually(`${i + 1} cron runs`, async () => {
          const runs = await client.runs.list(thread.thread_id);
          return runs.length === i + 1 && runs.every((r) => r.status === "success") ? true : undefined;
        });
      }
      const fired = [a, b].flatMap((s) => logLines(s).filter((l) => l.msg === "cron fired" && l.cron_id === cron.cron_id));
      expect(fired.map((l) => l.scheduled_for).sort()).toEqual(minutes);
      expect((await client.store.searchItems(["cron-ticks", label], { limit: 10 })).items).toHaveLength(3);
      await client.crons.delete(cron.cron_id);
    }, 60_000);

    it("creates the runs of stateless crons due at once in chunks, each occurrence once across the schedulers", async () => {
      const client = sdkClient(a.url);
      const label = `tick-${randomUUID()}`;
      const crons = await Promise.all(
        Array.from({ length: 20 }, () => client.crons.create("tick", { schedule: "* * * * *", input: { label }, onRunCompleted: "keep" })),
      );
      for (const at of ["2030-01-01T10:04:00.000Z", "2030-01-01T10:04:30.000Z"]) {
        await writeFile(clockFile, at + "\n");
        await eventually(
          `both schedulers to pass ${at}`,
          async () => ([a, b].every((s) => logLines(s).some((l) => l.msg === "cron tick" && Date.parse(l.now as string) >= Date.parse(at))) ? true : undefined),
          20_000,
        );
      }
      const fired = crons.map((cron) => [a, b].flatMap((s) => logLines(s).filter((l) => l.msg === "cron fired" && l.cron_id === cron.cron_id)));
      expect(fired.map((lines) => lines.length)).toEqual(crons.map(() => 1));
      const ticks = await eventually("every cron run to record its tick", async () => {
        const items = (await client.store.searchItems(["cron-ticks", label], { limit: 100 })).items;
        return items.length >= crons.length ? items : undefined;
      });
      expect(new Set(ticks.map((item) => item.value.thread_id)).size).toBe(crons.length);
      // Each run is a row of the shared database: the other replica sees it finished.
      const first = fired[0]![0]!;
      await runReaches(sdkClient(b.url), first.thread_id as string, first.run_id as string, "success");
      await Promise.all(crons.map((cron) => client.crons.delete(cron.cron_id)));
    }, 60_000);
  });
});
