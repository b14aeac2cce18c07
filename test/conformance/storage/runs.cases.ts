// RunRepo cases: enqueue with each multitask strategy and with the assistant the caller knows, claiming (order, availability, one run per
// thread, concurrent claimers), leases and heartbeats, finishing, cancelling, the expired-lease
// sweep, and get/list/delete. Claims and sweeps see every run in the database, so each case opens
// a database of its own.
import { Annotation, START, StateGraph } from "@langchain/langgraph";
import { expect } from "vitest";
import { LeaseLostError } from "../../../src/errors.js";
import type { Assistant, JsonObject, Run, RunStatus } from "../../../src/storage/records.js";
import type { ClaimedRun, EnqueueOptions, NewRun } from "../../../src/storage/run-ports.js";
import type { Storage } from "../../../src/storage/ports.js";
import { ISO_MS, newAssistant, newId, newKwargs, newRun, newThread, nextMillisecond } from "./builders.js";
import type { CaseContext, MigratedStorage, StorageHarness } from "./harness.js";

const SECOND = 1_000;
const LEASE_MS = 30 * SECOND;
const WORKER = "worker-1";

export function runCases<S extends MigratedStorage>({ test }: CaseContext, harness: StorageHarness<S>): void {
  /** A case on a database of its own, closed (and removed) when the case ends. */
  const fresh = (name: string, body: (storage: S) => Promise<void>) =>
    test(name, async () => {
      const storage = await harness.open();
      try {
        await body(storage);
      } finally {
        await harness.close(storage);
      }
    });

  async function thread(storage: Storage, metadata: JsonObject = {}): Promise<string> {
    const created = await storage.threads.create(newThread({ metadata }));
    if (!created) throw new Error("a fresh thread id was refused");
    return created.thread_id;
  }

  async function enqueue(storage: Storage, run: NewRun, options: Partial<EnqueueOptions> = {}): Promise<Run> {
    const result = await storage.runs.enqueue(run, { threadMetadata: {}, multitask: "enqueue", ...options });
    if (result.kind !== "created") throw new Error(`enqueue answered ${result.kind}`);
    return result.run;
  }

  async function claim(storage: Storage, now = new Date(), worker = WORKER, leaseMs = LEASE_MS): Promise<ClaimedRun | null> {
    return (await storage.runs.claim(worker, leaseMs, now, 1))[0] ?? null;
  }

  async function statusOf(storage: Storage, runId: string): Promise<RunStatus | undefined> {
    return (await storage.runs.get(runId))?.status;
  }

  async function threadStatus(storage: Storage, threadId: string) {
    return (await storage.threads.get(threadId))?.status;
  }

  const success = { status: "success", thread_status: "idle" } as const;

  // ---- enqueue -------------------------------------------------------------------------------

  fresh("enqueues a pending run, marks the thread busy and merges the thread metadata", async (s) => {
    const threadId = await thread(s, { user: "ann", graph_id: "old" });
    const input = newRun(threadId, { metadata: { origin: "test" }, kwargs: newKwargs({ input: { q: "hi" } }), multitask_strategy: "enqueue" });
    const result = await s.runs.enqueue(input, { threadMetadata: { graph_id: "agent", assistant_id: input.assistant_id }, multitask: "enqueue" });

    expect(result).toEqual({
      kind: "created",
      cancelled: [],
      stopped: [],
      run: {
        run_id: input.run_id,
        thread_id: threadId,
        assistant_id: input.assistant_id,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        status: "pending",
        metadata: { origin: "test" },
        kwargs: input.kwargs,
        multitask_strategy: "enqueue",
      },
    });
    expect(await s.runs.get(input.run_id)).toEqual(result.kind === "created" ? result.run : null);
    const read = await s.threads.get(threadId);
    expect(read?.status).toBe("busy");
    expect(read?.metadata).toEqual({ user: "ann", graph_id: "agent", assistant_id: input.assistant_id });
  });

  fresh("creates a missing thread when asked, the run's metadata winning over graph and assistant ids", async (s) => {
    const input = newRun(newId());
    const result = await s.runs.enqueue(input, {
      createThread: { metadata: { user: "bob", graph_id: "custom" }, temporary: false },
      threadMetadata: { graph_id: "agent", assistant_id: input.assistant_id },
      multitask: "reject",
    });

    expect(result.kind).toBe("created");
    const created = await s.threads.get(input.thread_id);
    expect(created).toMatchObject({ status: "busy", values: null, metadata: { user: "bob", graph_id: "custom", assistant_id: input.assistant_id } });
    expect(await statusOf(s, input.run_id)).toBe("pending");
  });

  fresh("refuses a run on a missing thread unless asked to create it", async (s) => {
    const input = newRun(newId());
    expect(await s.runs.enqueue(input, { threadMetadata: { graph_id: "agent" }, multitask: "enqueue" })).toEqual({ kind: "thread_missing" });
    expect(await s.runs.get(input.run_id)).toBeNull();
    expect(await s.threads.get(input.thread_id)).toBeNull();
  });

  fresh("queues behind an existing thread when asked to create one that exists", async (s) => {
    const threadId = await thread(s, { user: "ann" });
    const first = await enqueue(s, newRun(threadId));
    const second = newRun(threadId);
    const result = await s.runs.enqueue(second, {
      createThread: { metadata: { user: "bob" }, temporary: false },
      threadMetadata: { graph_id: "agent" },
      multitask: "enqueue",
    });

    expect(result.kind).toBe("created");
    expect((await s.threads.get(threadId))?.metadata).toEqual({ user: "ann", graph_id: "agent" });
    expect((await claim(s))?.run_id).toBe(first.run_id);
  });

  fresh("refuses a run of another graph on a thread that belongs to one, and writes nothing", async (s) => {
    const threadId = await thread(s, { user: "ann", graph_id: "agent" });
    const before = await s.threads.get(threadId);
    const other = newRun(threadId);

    const refused = await s.runs.enqueue(other, { threadMetadata: { graph_id: "tools" }, graphId: "tools", multitask: "enqueue" });
    expect(refused).toEqual({ kind: "wrong_graph", threadGraph: "agent" });
    expect(await s.runs.get(other.run_id)).toBeNull();
    expect(await s.threads.get(threadId)).toEqual(before);

    const own = await s.runs.enqueue(newRun(threadId), { threadMetadata: { graph_id: "agent" }, graphId: "agent", multitask: "enqueue" });
    expect(own.kind).toBe("created");
    const unowned = await thread(s, { user: "bob" });
    const first = await s.runs.enqueue(newRun(unowned), { threadMetadata: { graph_id: "tools" }, graphId: "tools", multitask: "enqueue" });
    expect(first.kind).toBe("created");
    expect((await s.threads.get(unowned))?.metadata).toEqual({ user: "bob", graph_id: "tools" });
  });

  fresh("rejects a run on a thread with an inflight run and writes nothing", async (s) => {
    const threadId = await thread(s, { user: "ann" });
    const first = await enqueue(s, newRun(threadId));
    const before = await s.threads.get(threadId);
    const second = newRun(threadId);

    expect(await s.runs.enqueue(second, { threadMetadata: { graph_id: "agent" }, multitask: "reject" })).toEqual({ kind: "busy" });
    await claim(s);
    expect(await s.runs.enqueue(second, { threadMetadata: { graph_id: "agent" }, multitask: "reject" })).toEqual({ kind: "busy" });

    expect(await s.runs.get(second.run_id)).toBeNull();
    expect((await s.threads.get(threadId))?.metadata).toEqual(before?.metadata);
    expect((await s.runs.list(threadId, {}, { limit: 10, offset: 0 })).map((r) => r.run_id)).toEqual([first.run_id]);
  });

  fresh("accepts a run with the reject strategy once the thread's runs have finished", async (s) => {
    const threadId = await thread(s);
    await enqueue(s, newRun(threadId));
    const claimed = await claim(s);
    await s.runs.finish(claimed!.run_id, WORKER, success);

    const result = await s.runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: "reject" });
    expect(result.kind).toBe("created");
  });

  fresh("queues a second run behind the first with the enqueue strategy", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    const second = await enqueue(s, newRun(threadId));

    expect(await statusOf(s, first.run_id)).toBe("pending");
    expect(await statusOf(s, second.run_id)).toBe("pending");
    expect((await claim(s))?.run_id).toBe(first.run_id);
    expect(await claim(s)).toBeNull();
    expect(await s.runs.finish(first.run_id, WORKER, success)).toBe(true);
    expect((await claim(s))?.run_id).toBe(second.run_id);
  });

  fresh("interrupts a pending inflight run at once when a run arrives with the interrupt strategy", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    const result = await s.runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: "interrupt" });

    expect(result).toMatchObject({ kind: "created", cancelled: [], stopped: [first.run_id] });
    expect(await statusOf(s, first.run_id)).toBe("interrupted");
    expect(await threadStatus(s, threadId)).toBe("busy");
    expect((await claim(s))?.run_id).toBe(result.kind === "created" ? result.run.run_id : undefined);
  });

  fresh("deletes a pending inflight run when a run arrives with the rollback strategy", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    const result = await s.runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: "rollback" });

    expect(result).toMatchObject({ kind: "created", cancelled: [], stopped: [first.run_id] });
    expect(await s.runs.get(first.run_id)).toBeNull();
    expect(await threadStatus(s, threadId)).toBe("busy");
    expect((await claim(s))?.run_id).toBe(result.kind === "created" ? result.run.run_id : undefined);
  });

  for (const strategy of ["interrupt", "rollback"] as const) {
    fresh(`flags a running inflight run for its worker when a run arrives with the ${strategy} strategy`, async (s) => {
      const threadId = await thread(s);
      const first = await enqueue(s, newRun(threadId));
      await claim(s);
      const result = await s.runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: strategy });

      expect(result).toMatchObject({ kind: "created", cancelled: [first.run_id], stopped: [] });
      expect(await statusOf(s, first.run_id)).toBe("running");
      expect((await s.runs.heartbeat(WORKER, [first.run_id], LEASE_MS, new Date())).cancels).toEqual(new Map([[first.run_id, strategy]]));
      expect(await claim(s)).toBeNull();
      await s.runs.finish(first.run_id, WORKER, { status: "interrupted", thread_status: "idle", delete_run: strategy === "rollback" });
      expect((await claim(s))?.run_id).toBe(result.kind === "created" ? result.run.run_id : undefined);
    });
  }

  // ---- several runs on new threads (enqueueOnNewThreads) ----------------------------------------

  fresh("creates several runs at once, each pending on a new busy thread with its metadata, answered and claimed in the order given", async (s) => {
    const items = [0, 1, 2].map((n) => ({
      run: newRun(newId(), { metadata: { n }, kwargs: newKwargs({ input: { n } }) }),
      threadMetadata: { graph_id: "agent", n },
    }));
    const created = await s.runs.enqueueOnNewThreads(items);

    expect(created).toEqual(
      items.map(({ run }) => ({
        run_id: run.run_id,
        thread_id: run.thread_id,
        assistant_id: run.assistant_id,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
        status: "pending",
        metadata: run.metadata,
        kwargs: run.kwargs,
        multitask_strategy: null,
      })),
    );
    for (const [n, { run }] of items.entries()) {
      expect(await s.runs.get(run.run_id)).toEqual(created[n]);
      expect(await s.threads.get(run.thread_id)).toMatchObject({ status: "busy", values: null, metadata: { graph_id: "agent", n } });
    }
    const claimed = [await claim(s), await claim(s), await claim(s)];
    expect(claimed.map((r) => r?.run_id)).toEqual(items.map(({ run }) => run.run_id));
    expect(await s.runs.enqueueOnNewThreads([])).toEqual([]);
  });

  fresh("leaves out a run whose thread exists, writing nothing of it, and creates the others", async (s) => {
    const existing = await thread(s, { user: "ann" });
    const before = await s.threads.get(existing);
    const onExisting = newRun(existing);
    const onNew = newRun(newId());
    const created = await s.runs.enqueueOnNewThreads([
      { run: onExisting, threadMetadata: { graph_id: "agent" } },
      { run: onNew, threadMetadata: { graph_id: "agent" } },
    ]);

    expect(created.map((r) => r.run_id)).toEqual([onNew.run_id]);
    expect(await s.runs.get(onExisting.run_id)).toBeNull();
    expect(await s.threads.get(existing)).toEqual(before);
    expect(await threadStatus(s, onNew.thread_id)).toBe("busy");
  });

  fresh("finishes a run created with others like any run: its thread goes idle", async (s) => {
    const [run] = await s.runs.enqueueOnNewThreads([{ run: newRun(newId()), threadMetadata: {} }]);
    const claimed = await claim(s);
    expect(claimed?.run_id).toBe(run!.run_id);
    expect(await s.runs.finish(run!.run_id, WORKER, success)).toBe(true);
    expect(await threadStatus(s, run!.thread_id)).toBe("idle");
  });

  // ---- claim at creation (claimFor) ------------------------------------------------------------

  const claimFor = { workerId: WORKER, leaseMs: LEASE_MS };

  fresh("claims a run in its creating transaction when nothing is ahead of it, answering it as created", async (s) => {
    const input = newRun(newId());
    const result = await s.runs.enqueue(input, { threadMetadata: {}, multitask: "enqueue", createThread: { metadata: {}, temporary: true }, claimFor });
    if (result.kind !== "created") throw new Error(`enqueue answered ${result.kind}`);

    expect(result.run.status).toBe("pending");
    expect(result.claimed).toMatchObject({ run_id: input.run_id, status: "running", attempt: 1, cancel_action: null });
    expect(await statusOf(s, input.run_id)).toBe("running");
    expect(await threadStatus(s, input.thread_id)).toBe("busy");
    expect(await claim(s)).toBeNull();
    // The lease is the claimer's: its heartbeat holds it, and it finishes the run.
    expect(await s.runs.heartbeat(WORKER, [input.run_id], LEASE_MS, new Date())).toEqual({ cancels: new Map(), lost: [] });
    expect(await s.runs.finish(input.run_id, "someone-else", success)).toBe(false);
    expect(await s.runs.finish(input.run_id, WORKER, success)).toBe(true);
    expect(await threadStatus(s, input.thread_id)).toBe("idle");
  });

  fresh("leaves a run pending when its thread has a run ahead of it", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    const result = await s.runs.enqueue(newRun(threadId), { threadMetadata: {}, multitask: "enqueue", claimFor });

    expect(result).toMatchObject({ kind: "created" });
    expect(result.kind === "created" ? result.claimed : "not created").toBeUndefined();
    expect((await claim(s))?.run_id).toBe(first.run_id);
  });

  fresh("leaves a run pending when an eligible run of another thread waits in the queue", async (s) => {
    const waiting = await enqueue(s, newRun(await thread(s)));
    const result = await s.runs.enqueue(newRun(await thread(s)), { threadMetadata: {}, multitask: "enqueue", claimFor });

    expect(result).toMatchObject({ kind: "created" });
    expect(result.kind === "created" ? result.claimed : "not created").toBeUndefined();
    expect((await claim(s))?.run_id).toBe(waiting.run_id);
  });

  fresh("leaves a run with after_seconds pending until its time", async (s) => {
    const later = newRun(await thread(s), { available_at: new Date(Date.now() + 60 * SECOND) });
    const result = await s.runs.enqueue(later, { threadMetadata: {}, multitask: "enqueue", claimFor });

    expect(result).toMatchObject({ kind: "created" });
    expect(result.kind === "created" ? result.claimed : "not created").toBeUndefined();
    expect(await statusOf(s, later.run_id)).toBe("pending");
  });

  // ---- the assistant the caller knows (assistantVersion) ---------------------------------------

  async function assistant(storage: Storage): Promise<Assistant> {
    const created = await storage.assistants.create(newAssistant());
    if (!created) throw new Error("a fresh assistant id was refused");
    return created;
  }
  const versionOf = (known: Assistant) => ({ version: known.version, updated_at: known.updated_at });

  fresh("creates a run while its assistant is still the one the caller knows, on a new thread and on an existing one", async (s) => {
    const known = await assistant(s);
    const assistantVersion = versionOf(known);
    const stateless = newRun(newId(), { assistant_id: known.assistant_id });
    const onNew = await s.runs.enqueue(stateless, {
      threadMetadata: {},
      multitask: "enqueue",
      createThread: { metadata: {}, temporary: true },
      claimFor,
      assistantVersion,
    });
    expect(onNew).toMatchObject({ kind: "created", claimed: { run_id: stateless.run_id } });

    const threadId = await thread(s);
    const first = newRun(threadId, { assistant_id: known.assistant_id });
    expect(await s.runs.enqueue(first, { threadMetadata: {}, multitask: "enqueue", assistantVersion })).toMatchObject({ kind: "created" });
    const second = newRun(threadId, { assistant_id: known.assistant_id });
    const createThread = { metadata: {}, temporary: false };
    expect(await s.runs.enqueue(second, { threadMetadata: {}, multitask: "enqueue", createThread, assistantVersion })).toMatchObject({ kind: "created" });
    expect((await s.runs.list(threadId, {}, { limit: 10, offset: 0 })).map((r) => r.run_id)).toEqual([second.run_id, first.run_id]);
  });

  /** Each makes an assistant, changes it, and returns it as it was before the change. */
  const staleAfter: Record<string, (s: Storage) => Promise<Assistant>> = {
    updated: async (s) => {
      const known = await assistant(s);
      await s.assistants.update(known.assistant_id, { config: { configurable: { model: "large" } } });
      return known;
    },
    "set to another version": async (s) => {
      const first = await assistant(s);
      const known = await s.assistants.update(first.assistant_id, { name: "Second" });
      await s.assistants.setLatest(first.assistant_id, 1);
      return known!;
    },
    deleted: async (s) => {
      const known = await assistant(s);
      await s.assistants.delete(known.assistant_id);
      return known;
    },
    "deleted and created again, at version 1 again": async (s) => {
      const known = await assistant(s);
      await s.assistants.delete(known.assistant_id);
      await nextMillisecond();
      await s.assistants.create(newAssistant({ assistant_id: known.assistant_id, config: { configurable: { model: "large" } } }));
      return known;
    },
  };

  for (const [change, makeStale] of Object.entries(staleAfter)) {
    fresh(`refuses a run once its assistant was ${change}, and writes nothing: no thread, no run, no cancel`, async (s) => {
      const known = await makeStale(s);
      const assistantVersion = versionOf(known);
      const changed = { kind: "assistant_changed" };

      const stateless = newRun(newId(), { assistant_id: known.assistant_id });
      const createThread = { metadata: {}, temporary: true };
      expect(
        await s.runs.enqueue(stateless, { threadMetadata: { graph_id: "agent" }, multitask: "enqueue", createThread, claimFor, assistantVersion }),
      ).toEqual(changed);
      expect(await s.runs.get(stateless.run_id)).toBeNull();
      expect(await s.threads.get(stateless.thread_id)).toBeNull();

      // On an existing thread, under a strategy that would stop the run waiting there, with and
      // without asking for the thread to be created.
      const threadId = await thread(s, { user: "ann" });
      const waiting = await enqueue(s, newRun(threadId));
      const before = await s.threads.get(threadId);
      for (const options of [{}, { createThread: { metadata: {}, temporary: false } }]) {
        const refused = newRun(threadId, { assistant_id: known.assistant_id });
        expect(await s.runs.enqueue(refused, { threadMetadata: { graph_id: "agent" }, multitask: "interrupt", assistantVersion, ...options })).toEqual(changed);
        expect(await s.runs.get(refused.run_id)).toBeNull();
      }
      expect(await s.threads.get(threadId)).toEqual(before);
      expect(await claim(s)).toMatchObject({ run_id: waiting.run_id, attempt: 1 });
    });
  }

  // ---- many unclaimed runs on new threads at once (PostgreSQL sends them a few to a statement) --

  /** Runs on new threads with one available_at, so the queue orders them by arrival alone. */
  function statelessRuns(count: number, overrides: Partial<NewRun> = {}): NewRun[] {
    const availableAt = new Date(Date.now() - SECOND);
    return Array.from({ length: count }, () => newRun(newId(), { available_at: availableAt, ...overrides }));
  }
  /**
   * Which runs a claim took, and the order of those past the first two calls: on PostgreSQL the
   * first two go at once, each in a statement of its own, and either may land after the calls
   * queued behind them, which leave together in the order of the calls.
   */
  async function claimedInOrder(s: Storage, runs: NewRun[]): Promise<{ taken: string[]; grouped: string[] }> {
    const claimed = (await s.runs.claim(WORKER, LEASE_MS, new Date(), 50)).map((r) => r.run_id);
    const grouped = new Set(runs.slice(2).map((r) => r.run_id));
    return { taken: [...claimed].sort(), grouped: claimed.filter((id) => grouped.has(id)) };
  }
  const ids = (runs: NewRun[]) => runs.map((r) => r.run_id);
  const onNewThread = (metadata: JsonObject = {}): Partial<EnqueueOptions> => ({ createThread: { metadata, temporary: true } });

  fresh("creates many unclaimed runs on new threads at once, each pending on its busy thread, queued in the order of the calls", async (s) => {
    const runs = statelessRuns(12);
    const results = await Promise.all(
      runs.map((run) => s.runs.enqueue(run, { threadMetadata: { graph_id: "agent" }, multitask: "enqueue", ...onNewThread({ user: "ann" }) })),
    );

    for (const [i, run] of runs.entries()) {
      expect(results[i]).toEqual({ kind: "created", run: await s.runs.get(run.run_id), cancelled: [], stopped: [] });
      expect(results[i]).toMatchObject({ run: { run_id: run.run_id, thread_id: run.thread_id, status: "pending", kwargs: run.kwargs } });
      expect(await s.threads.get(run.thread_id)).toMatchObject({ status: "busy", metadata: { user: "ann", graph_id: "agent" } });
    }
    expect(await claimedInOrder(s, runs)).toEqual({ taken: ids(runs).sort(), grouped: ids(runs.slice(2)) });
  });

  fresh("among many unclaimed runs on new threads at once, refuses the one whose assistant changed and creates the others", async (s) => {
    const changed = await staleAfter.updated!(s);
    const current = await assistant(s);
    const runs = statelessRuns(8, { assistant_id: current.assistant_id });
    const stale = newRun(newId(), { assistant_id: changed.assistant_id });
    const enqueueing = runs.map((run) =>
      s.runs.enqueue(run, { threadMetadata: {}, multitask: "enqueue", ...onNewThread(), assistantVersion: versionOf(current) }),
    );
    const refused = s.runs.enqueue(stale, { threadMetadata: {}, multitask: "enqueue", ...onNewThread(), assistantVersion: versionOf(changed) });

    expect(await refused).toEqual({ kind: "assistant_changed" });
    expect(await s.runs.get(stale.run_id)).toBeNull();
    expect(await s.threads.get(stale.thread_id)).toBeNull();
    expect((await Promise.all(enqueueing)).map((r) => r.kind)).toEqual(runs.map(() => "created"));
    expect(await claimedInOrder(s, runs)).toEqual({ taken: ids(runs).sort(), grouped: ids(runs.slice(2)) });
  });

  fresh(
    "among many unclaimed runs on new threads at once, one whose thread exists queues behind its run, and of two naming one new thread the second queues behind the first",
    async (s) => {
      const existing = await thread(s, { user: "ann" });
      const waiting = await enqueue(s, newRun(existing));
      const runs = statelessRuns(6);
      const shared = newId();
      const onShared = statelessRuns(2, { thread_id: shared });
      const behindExisting = newRun(existing, { available_at: runs[0]!.available_at });
      const calls = [...runs, behindExisting, ...onShared].map((run) =>
        s.runs.enqueue(run, { threadMetadata: { graph_id: "agent" }, multitask: "enqueue", ...onNewThread({ user: "bob" }) }),
      );

      expect((await Promise.all(calls)).map((r) => r.kind)).toEqual(calls.map(() => "created"));
      // As a lone enqueue on an existing thread: the thread keeps its metadata, merged with the run's.
      expect((await s.threads.get(existing))?.metadata).toEqual({ user: "ann", graph_id: "agent" });
      expect((await s.threads.get(shared))?.metadata).toEqual({ user: "bob", graph_id: "agent" });
      expect((await s.runs.list(shared, {}, { limit: 10, offset: 0 })).map((r) => r.run_id)).toEqual(onShared.map((r) => r.run_id).reverse());
      // The run waiting on the existing thread was enqueued before them all.
      expect(await claimedInOrder(s, [...runs, onShared[0]!])).toEqual({
        taken: [waiting.run_id, ...ids(runs), onShared[0]!.run_id].sort(),
        grouped: ids([...runs.slice(2), onShared[0]!]),
      });
    },
  );

  fresh("makes a thread left in error busy again when its waiting run is claimed, and leaves a busy thread as it is", async (s) => {
    const threadId = await thread(s);
    const failing = await enqueue(s, newRun(threadId));
    const waiting = await enqueue(s, newRun(threadId));
    await claim(s);
    await s.runs.finish(failing.run_id, WORKER, { status: "error", thread_status: "error", error: { error: "ValueError" } });
    const errored = await s.threads.get(threadId);
    expect(errored?.status).toBe("error");
    await nextMillisecond();

    expect((await claim(s))?.run_id).toBe(waiting.run_id);
    const resumed = await s.threads.get(threadId);
    expect(resumed?.status).toBe("busy");
    expect(Date.parse(resumed!.updated_at)).toBeGreaterThan(Date.parse(errored!.updated_at));

    const busyThread = await thread(s);
    const queued = await enqueue(s, newRun(busyThread));
    const busy = await s.threads.get(busyThread);
    expect(busy?.status).toBe("busy");
    await nextMillisecond();
    expect((await claim(s))?.run_id).toBe(queued.run_id);
    expect(await s.threads.get(busyThread)).toEqual(busy);
  });

  fresh("claims the oldest eligible run first: by available time, then by arrival", async (s) => {
    const base = Date.now() - 60 * SECOND;
    const late = await enqueue(s, newRun(await thread(s), { available_at: new Date(base + 2 * SECOND) }));
    const early = await enqueue(s, newRun(await thread(s), { available_at: new Date(base + SECOND) }));
    const tiedLater = await enqueue(s, newRun(await thread(s), { available_at: new Date(base + SECOND) }));

    const order = [await claim(s), await claim(s), await claim(s), await claim(s)].map((r) => r?.run_id ?? null);
    expect(order).toEqual([early.run_id, tiedLater.run_id, late.run_id, null]);
  });

  fresh("never claims a second run of a thread while one of its runs is running", async (s) => {
    const busy = await thread(s);
    const other = await thread(s);
    const first = await enqueue(s, newRun(busy));
    const blocked = await enqueue(s, newRun(busy));
    const elsewhere = await enqueue(s, newRun(other));

    expect((await claim(s))?.run_id).toBe(first.run_id);
    expect((await claim(s))?.run_id).toBe(elsewhere.run_id);
    expect(await claim(s)).toBeNull();
    expect(await statusOf(s, blocked.run_id)).toBe("pending");
  });

  fresh("claims several runs in one call, oldest first and at most one per thread, up to the limit", async (s) => {
    const base = Date.now() - 60 * SECOND;
    const busy = await thread(s);
    const first = await enqueue(s, newRun(busy, { available_at: new Date(base) }));
    const behind = await enqueue(s, newRun(busy, { available_at: new Date(base) }));
    const later = await enqueue(s, newRun(await thread(s), { available_at: new Date(base + 2 * SECOND) }));
    const early = await enqueue(s, newRun(await thread(s), { available_at: new Date(base + SECOND) }));
    const notYet = await enqueue(s, newRun(await thread(s), { available_at: new Date(Date.now() + 60 * SECOND) }));

    const claimed = await s.runs.claim(WORKER, LEASE_MS, new Date(), 10);
    expect(claimed.map((r) => r.run_id)).toEqual([first.run_id, early.run_id, later.run_id]);
    expect(claimed.every((r) => r.attempt === 1)).toBe(true);
    expect(await statusOf(s, behind.run_id)).toBe("pending");
    expect(await statusOf(s, notYet.run_id)).toBe("pending");
    expect(await s.runs.claim(WORKER, LEASE_MS, new Date(), 10)).toEqual([]);

    await s.runs.finish(first.run_id, WORKER, success);
    const more = await enqueue(s, newRun(await thread(s)));
    expect((await s.runs.claim(WORKER, LEASE_MS, new Date(), 1)).map((r) => r.run_id)).toEqual([behind.run_id]);
    expect((await s.runs.claim(WORKER, LEASE_MS, new Date(), 1)).map((r) => r.run_id)).toEqual([more.run_id]);
  });

  fresh("starts a thread's runs in arrival order even when a later one is available sooner", async (s) => {
    const threadId = await thread(s);
    const now = Date.now();
    const first = await enqueue(s, newRun(threadId, { available_at: new Date(now + 60 * SECOND) }));
    const second = await enqueue(s, newRun(threadId, { available_at: new Date(now - SECOND) }));

    expect(await claim(s, new Date(now))).toBeNull();
    expect((await claim(s, new Date(now + 61 * SECOND)))?.run_id).toBe(first.run_id);
    await s.runs.finish(first.run_id, WORKER, success);
    expect((await claim(s, new Date(now + 62 * SECOND)))?.run_id).toBe(second.run_id);
  });

  fresh("does not claim a run before its available time, and reports that time as the next wake-up", async (s) => {
    expect(await s.runs.nextAvailableAt()).toBeNull();
    const now = Date.now();
    const at = new Date(now + 60 * SECOND);
    const run = await enqueue(s, newRun(await thread(s), { available_at: at }));

    expect(await claim(s, new Date(now))).toBeNull();
    expect(await s.runs.nextAvailableAt()).toEqual(at);
    expect((await claim(s, at))?.run_id).toBe(run.run_id);
    expect(await s.runs.nextAvailableAt()).toBeNull();
  });

  fresh("never hands one run to two claimers, nor two runs of one thread, when many claim at once", async (s) => {
    const other = await harness.reopen(s);
    try {
      const threads = await Promise.all(Array.from({ length: 6 }, () => thread(s)));
      const queued = new Map<string, string[]>(threads.map((t) => [t, []]));
      for (let round = 0; round < 3; round++) {
        for (const threadId of threads) queued.get(threadId)!.push((await enqueue(s, newRun(threadId))).run_id);
      }
      // Two storages: on PostgreSQL, two pools, as two processes would have.
      const claimers = [
        { storage: s as Storage, worker: "w-a" },
        { storage: other as Storage, worker: "w-b" },
      ];
      const started = new Map<string, string[]>(threads.map((t) => [t, []]));
      for (let round = 0; round < 3; round++) {
        const burst = await Promise.all(
          Array.from({ length: 16 }, async (_, i) => {
            const claimer = claimers[i % 2]!;
            return { ...claimer, run: await claim(claimer.storage, new Date(), claimer.worker) };
          }),
        );
        const claimed = burst.filter((c): c is typeof c & { run: ClaimedRun } => c.run !== null);
        // A claimer that met only locked rows found nothing; what it passed over is still there.
        for (let run = await claim(s, new Date(), "w-a"); run; run = await claim(s, new Date(), "w-a")) claimed.push({ ...claimers[0]!, run });

        expect(claimed.length).toBe(threads.length);
        expect(new Set(claimed.map((c) => c.run.thread_id)).size).toBe(threads.length);
        for (const { storage, worker, run } of claimed) {
          started.get(run.thread_id)!.push(run.run_id);
          expect(await storage.runs.finish(run.run_id, worker, success)).toBe(true);
        }
      }
      expect(started).toEqual(queued);
    } finally {
      await other.close();
    }
  });

  // ---- leases and heartbeats -----------------------------------------------------------------

  fresh("extends the lease on heartbeat for the worker holding the run only", async (s) => {
    const mine = await enqueue(s, newRun(await thread(s)));
    const theirs = await enqueue(s, newRun(await thread(s)));
    const now = Date.now();
    expect((await claim(s, new Date(now), WORKER, SECOND))?.run_id).toBe(mine.run_id);
    expect((await claim(s, new Date(now), "someone-else", SECOND))?.run_id).toBe(theirs.run_id);

    expect(await s.runs.heartbeat(WORKER, [mine.run_id, theirs.run_id], 60 * SECOND, new Date(now))).toEqual({ cancels: new Map(), lost: [theirs.run_id] });
    expect(await s.runs.recoverExpired(new Date(now + 30 * SECOND), 3)).toEqual({ requeued: 1, failed: 0 });
    expect(await statusOf(s, mine.run_id)).toBe("running");
    expect(await statusOf(s, theirs.run_id)).toBe("pending");
  });

  fresh("tells a worker on heartbeat which of its runs it lost: requeued, then taken by another worker", async (s) => {
    const run = await enqueue(s, newRun(await thread(s)));
    const now = Date.now();
    await claim(s, new Date(now), WORKER, SECOND);
    expect(await s.runs.recoverExpired(new Date(now + 30 * SECOND), 3)).toEqual({ requeued: 1, failed: 0 });
    expect((await s.runs.heartbeat(WORKER, [run.run_id], LEASE_MS, new Date())).lost).toEqual([run.run_id]);
    expect(await claim(s, new Date(now + 30 * SECOND), "someone-else")).not.toBeNull();
    expect((await s.runs.heartbeat(WORKER, [run.run_id], LEASE_MS, new Date())).lost).toEqual([run.run_id]);
    expect(await s.runs.heartbeat("someone-else", [run.run_id], LEASE_MS, new Date())).toEqual({ cancels: new Map(), lost: [] });
  });

  fresh("lands a guarded run's checkpoints only while its worker holds the lease, and refuses every write after the first refusal", async (s) => {
    const graph = new StateGraph(Annotation.Root({ n: Annotation<number> }))
      .addNode("step", (state) => ({ n: state.n + 1 }))
      .addEdge(START, "step")
      .compile({ checkpointer: s.checkpoints.saver });
    const run = await enqueue(s, newRun(await thread(s)));
    // Each invoke on a thread of its own: the lease is the run's, whichever thread its checkpoints name.
    const invoke = (n: number) => {
      const threadId = newId();
      return { threadId, result: graph.invoke({ n }, { configurable: { thread_id: threadId, run_id: run.run_id } }) };
    };
    const now = Date.now();
    const first = (await claim(s, new Date(now), WORKER, SECOND))!;
    const failures: unknown[] = [];
    const unguard = s.checkpoints.guardWrites(run.run_id, { workerId: WORKER, attempt: first.attempt }, (err) => failures.push(err));
    const held = invoke(1);
    expect(await held.result).toEqual({ n: 2 });
    expect(await s.checkpoints.latestCheckpointId(held.threadId)).not.toBeNull();

    // The lease lapses, the sweeper requeues the run and another worker takes it: the first worker's writes no longer land.
    expect(await s.runs.recoverExpired(new Date(now + 30 * SECOND), 3)).toEqual({ requeued: 1, failed: 0 });
    const second = (await claim(s, new Date(now + 30 * SECOND), "someone-else"))!;
    expect(second.attempt).toBe(first.attempt + 1);
    for (const n of [3, 4]) {
      const late = invoke(n);
      await expect(late.result).rejects.toBeInstanceOf(LeaseLostError);
      expect(await s.checkpoints.latestCheckpointId(late.threadId)).toBeNull();
    }
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(LeaseLostError);
    unguard();

    // The new owner's writes land.
    const ownerUnguard = s.checkpoints.guardWrites(run.run_id, { workerId: "someone-else", attempt: second.attempt }, (err) => failures.push(err));
    const owned = invoke(5);
    expect(await owned.result).toEqual({ n: 6 });
    ownerUnguard();
    expect(failures).toHaveLength(1);
    expect(await s.checkpoints.latestCheckpointId(owned.threadId)).not.toBeNull();
  });

  fresh("reports a cancel request on heartbeat to the worker holding the run only", async (s) => {
    const run = await enqueue(s, newRun(await thread(s)));
    await claim(s);
    await s.runs.cancel({ runIds: [run.run_id] }, "rollback");

    expect(await s.runs.heartbeat(WORKER, [run.run_id], LEASE_MS, new Date())).toEqual({ cancels: new Map([[run.run_id, "rollback"]]), lost: [] });
    expect(await s.runs.heartbeat("someone-else", [run.run_id], LEASE_MS, new Date())).toEqual({ cancels: new Map(), lost: [run.run_id] });
    expect(await s.runs.heartbeat(WORKER, [], LEASE_MS, new Date())).toEqual({ cancels: new Map(), lost: [] });
  });

  // ---- finish --------------------------------------------------------------------------------

  fresh("records an outcome only for the worker holding the lease", async (s) => {
    const run = await enqueue(s, newRun(await thread(s)));
    await claim(s);

    expect(await s.runs.finish(run.run_id, "someone-else", success)).toBe(false);
    expect(await statusOf(s, run.run_id)).toBe("running");
    expect(await s.runs.finish(run.run_id, WORKER, success)).toBe(true);
    expect(await statusOf(s, run.run_id)).toBe("success");
    expect(await s.runs.finish(run.run_id, WORKER, success)).toBe(false);
    expect(await s.runs.finish(newId(), WORKER, success)).toBe(false);
  });

  fresh("sets the thread idle with the final state after a successful run", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    await claim(s);
    const before = await s.threads.get(threadId);
    await nextMillisecond();

    await s.runs.finish(run.run_id, WORKER, { ...success, values: { messages: ["hi"] }, interrupts: {}, error: null });
    const after = await s.threads.get(threadId);
    expect(after).toMatchObject({ status: "idle", values: { messages: ["hi"] }, interrupts: {}, error: null });
    expect(Date.parse(after!.state_updated_at)).toBeGreaterThan(Date.parse(before!.state_updated_at));
    expect((await s.runs.get(run.run_id))?.status).toBe("success");
  });

  fresh("keeps the thread busy when a run finishes while more runs wait", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    await enqueue(s, newRun(threadId));
    await claim(s);

    await s.runs.finish(first.run_id, WORKER, success);
    expect(await threadStatus(s, threadId)).toBe("busy");
  });

  fresh("marks the thread interrupted or errored as the outcome says, even with runs waiting, until a later run clears it", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    const second = await enqueue(s, newRun(threadId));
    const third = await enqueue(s, newRun(threadId));
    const interrupts = { task: [{ value: "name?", id: "i1" }] };

    await claim(s);
    await s.runs.finish(first.run_id, WORKER, { status: "success", thread_status: "interrupted", values: { step: 1 }, interrupts });
    expect(await s.threads.get(threadId)).toMatchObject({ status: "interrupted", values: { step: 1 }, interrupts, error: null });

    await claim(s);
    const error = { error: "ValueError", message: "bad input" };
    await s.runs.finish(second.run_id, WORKER, { status: "error", thread_status: "error", error });
    expect(await s.threads.get(threadId)).toMatchObject({ status: "error", values: { step: 1 }, interrupts, error });
    expect(await statusOf(s, second.run_id)).toBe("error");

    await claim(s);
    await s.runs.finish(third.run_id, WORKER, success);
    expect(await s.threads.get(threadId)).toMatchObject({ status: "idle", values: { step: 1 }, interrupts, error: null });
  });

  fresh("deletes the run on a rollback outcome, and the thread on a temporary thread's outcome", async (s) => {
    const kept = await thread(s);
    const rolledBack = await enqueue(s, newRun(kept));
    await claim(s);
    expect(await s.runs.finish(rolledBack.run_id, WORKER, { status: "interrupted", thread_status: "idle", delete_run: true })).toBe(true);
    expect(await s.runs.get(rolledBack.run_id)).toBeNull();
    expect(await threadStatus(s, kept)).toBe("idle");

    const temporary = newRun(newId());
    await enqueue(s, temporary, { createThread: { metadata: {}, temporary: true } });
    await claim(s);
    expect(await s.runs.finish(temporary.run_id, WORKER, { ...success, delete_thread: true })).toBe(true);
    expect(await s.threads.get(temporary.thread_id)).toBeNull();
    expect(await s.runs.get(temporary.run_id)).toBeNull();
  });

  fresh("deletes a temporary thread's checkpoints with it, and keeps them when the lease was lost", async (s) => {
    const checkpointed = async (threadId: string) => (await s.checkpoints.saver.getTuple({ configurable: { thread_id: threadId } })) !== undefined;
    const graph = new StateGraph(Annotation.Root({ n: Annotation<number> }))
      .addNode("step", (state) => ({ n: state.n + 1 }))
      .addEdge(START, "step")
      .compile({ checkpointer: s.checkpoints.saver });

    const temporary = newRun(newId());
    await enqueue(s, temporary, { createThread: { metadata: {}, temporary: true } });
    await claim(s);
    await graph.invoke({ n: 1 }, { configurable: { thread_id: temporary.thread_id } });
    expect(await checkpointed(temporary.thread_id)).toBe(true);
    expect(await s.runs.finish(temporary.run_id, "another-worker", { ...success, delete_thread: true })).toBe(false);
    expect(await checkpointed(temporary.thread_id)).toBe(true);
    expect(await s.runs.finish(temporary.run_id, WORKER, { ...success, delete_thread: true })).toBe(true);
    expect(await checkpointed(temporary.thread_id)).toBe(false);
  });

  /** `count` stateless runs, each on a temporary thread of its own with a checkpoint, claimed by `worker`. */
  async function claimedStatelessRuns(s: S, count: number, worker: string): Promise<NewRun[]> {
    const graph = new StateGraph(Annotation.Root({ n: Annotation<number> }))
      .addNode("step", (state) => ({ n: state.n + 1 }))
      .addEdge(START, "step")
      .compile({ checkpointer: s.checkpoints.saver });
    const runs: NewRun[] = [];
    for (let i = 0; i < count; i++) {
      const run = newRun(newId());
      await enqueue(s, run, { createThread: { metadata: {}, temporary: true } });
      await graph.invoke({ n: i }, { configurable: { thread_id: run.thread_id } });
      runs.push(run);
    }
    expect(await s.runs.claim(worker, LEASE_MS, new Date(), count)).toHaveLength(count);
    return runs;
  }

  async function leftOf(s: S, run: NewRun) {
    return {
      run: await s.runs.get(run.run_id),
      thread: await s.threads.get(run.thread_id),
      checkpoint: await s.checkpoints.saver.getTuple({ configurable: { thread_id: run.thread_id } }),
    };
  }

  fresh("finishes many stateless runs at once, each answering true and leaving no run, thread or checkpoint", async (s) => {
    const runs = await claimedStatelessRuns(s, 12, WORKER);

    const finished = await Promise.all(runs.map((run) => s.runs.finish(run.run_id, WORKER, { ...success, delete_thread: true })));
    expect(finished).toEqual(runs.map(() => true));
    for (const run of runs) expect(await leftOf(s, run)).toEqual({ run: null, thread: null, checkpoint: undefined });
  });

  fresh("answers false to a stateless finish whose lease another worker holds, leaving its run alone while the others finish", async (s) => {
    const [taken] = await claimedStatelessRuns(s, 1, "another-worker");
    const runs = [...(await claimedStatelessRuns(s, 11, WORKER)), taken!];

    const finishing = runs.map((run) => s.runs.finish(run.run_id, WORKER, { ...success, delete_thread: true }));
    // The same finish twice at once records it once, as one after the other would.
    const again = s.runs.finish(runs[5]!.run_id, WORKER, { ...success, delete_thread: true });
    expect(await Promise.all(finishing)).toEqual([...runs.slice(0, -1).map(() => true), false]);
    expect(await again).toBe(false);
    for (const run of runs.slice(0, -1)) expect(await leftOf(s, run)).toEqual({ run: null, thread: null, checkpoint: undefined });
    const left = await leftOf(s, taken!);
    expect(left.run?.status).toBe("running");
    expect(left.thread?.status).toBe("busy");
    expect(left.checkpoint).toBeDefined();
    expect(await s.runs.finish(taken!.run_id, "another-worker", { ...success, delete_thread: true })).toBe(true);
  });

  // ---- cancel --------------------------------------------------------------------------------

  fresh("cancels runs by id: pending ones stop at once, running ones are flagged", async (s) => {
    const threadId = await thread(s);
    const running = await enqueue(s, newRun(threadId));
    const pending = await enqueue(s, newRun(threadId));
    await claim(s);

    expect(await s.runs.cancel({ runIds: [running.run_id, pending.run_id], threadId }, "interrupt")).toEqual({
      stopped: [pending.run_id],
      flagged: [running.run_id],
    });
    expect(await statusOf(s, pending.run_id)).toBe("interrupted");
    expect(await statusOf(s, running.run_id)).toBe("running");
    expect(await threadStatus(s, threadId)).toBe("busy");

    await s.runs.finish(running.run_id, WORKER, { status: "interrupted", thread_status: "idle" });
    expect(await threadStatus(s, threadId)).toBe("idle");
  });

  fresh("deletes pending runs cancelled with rollback and settles the thread to idle", async (s) => {
    const threadId = await thread(s);
    const first = await enqueue(s, newRun(threadId));
    const second = await enqueue(s, newRun(threadId));

    expect(await s.runs.cancel({ runIds: [first.run_id] }, "rollback")).toEqual({ stopped: [first.run_id], flagged: [] });
    expect(await s.runs.get(first.run_id)).toBeNull();
    expect(await threadStatus(s, threadId)).toBe("busy");

    expect(await s.runs.cancel({ runIds: [second.run_id] }, "rollback")).toEqual({ stopped: [second.run_id], flagged: [] });
    expect(await threadStatus(s, threadId)).toBe("idle");
  });

  fresh("cancels nothing for runs on another thread, finished runs or unknown ids", async (s) => {
    const threadId = await thread(s);
    const finished = await enqueue(s, newRun(threadId));
    await claim(s);
    await s.runs.finish(finished.run_id, WORKER, success);
    const pending = await enqueue(s, newRun(threadId));

    const nothing = { stopped: [], flagged: [] };
    expect(await s.runs.cancel({ runIds: [pending.run_id], threadId: await thread(s) }, "interrupt")).toEqual(nothing);
    expect(await s.runs.cancel({ runIds: [finished.run_id, newId()] }, "rollback")).toEqual(nothing);
    expect(await statusOf(s, pending.run_id)).toBe("pending");
    expect(await statusOf(s, finished.run_id)).toBe("success");
  });

  fresh("cancels every run with a status", async (s) => {
    const busy = await thread(s);
    const queued = await thread(s);
    const running = await enqueue(s, newRun(busy));
    const behind = await enqueue(s, newRun(busy));
    const alone = await enqueue(s, newRun(queued));
    expect((await claim(s))?.run_id).toBe(running.run_id);

    const pendingCancel = await s.runs.cancel({ status: "pending" }, "interrupt");
    expect({ ...pendingCancel, stopped: [...pendingCancel.stopped].sort() }).toEqual({ stopped: [behind.run_id, alone.run_id].sort(), flagged: [] });
    expect(await threadStatus(s, queued)).toBe("idle");
    expect(await threadStatus(s, busy)).toBe("busy");

    expect(await s.runs.cancel({ status: "running" }, "rollback")).toEqual({ stopped: [], flagged: [running.run_id] });
    expect((await s.runs.heartbeat(WORKER, [running.run_id], LEASE_MS, new Date())).cancels).toEqual(new Map([[running.run_id, "rollback"]]));

    const fresher = await enqueue(s, newRun(queued));
    expect(await s.runs.cancel({ status: "all" }, "interrupt")).toEqual({ stopped: [fresher.run_id], flagged: [running.run_id] });
  });

  // ---- expired leases ------------------------------------------------------------------------

  fresh("requeues a run whose lease ran out, and counts the next claim as a new attempt", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    const now = Date.now();
    await claim(s, new Date(now), "lost-worker", SECOND);

    expect(await s.runs.recoverExpired(new Date(now + 500), 3)).toEqual({ requeued: 0, failed: 0 });
    expect(await s.runs.recoverExpired(new Date(now + 2 * SECOND), 3)).toEqual({ requeued: 1, failed: 0 });
    expect(await statusOf(s, run.run_id)).toBe("pending");
    expect(await threadStatus(s, threadId)).toBe("busy");
    expect(await s.runs.finish(run.run_id, "lost-worker", success)).toBe(false);

    const again = await claim(s, new Date(now + 3 * SECOND), WORKER, LEASE_MS);
    expect(again).toMatchObject({ run_id: run.run_id, attempt: 2 });
    expect(await s.runs.finish(run.run_id, WORKER, success)).toBe(true);
  });

  fresh("hands a running run back to the queue for another worker, only from the worker holding it", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    const now = Date.now();
    await claim(s, new Date(now), "stopping-worker", LEASE_MS);

    expect(await s.runs.release(run.run_id, "someone-else", new Date(now + 1))).toBe(false);
    expect(await s.runs.release(run.run_id, "stopping-worker", new Date(now + 1))).toBe(true);
    expect(await statusOf(s, run.run_id)).toBe("pending");
    expect(await threadStatus(s, threadId)).toBe("busy");
    expect(await s.runs.release(run.run_id, "stopping-worker", new Date(now + 2))).toBe(false);
    expect(await claim(s, new Date(now + 3), WORKER, LEASE_MS)).toMatchObject({ run_id: run.run_id, attempt: 2 });
  });

  fresh("takes back a lease that has not run out when told to, and makes the run claimable at once", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    const now = Date.now();
    await claim(s, new Date(now), "previous-process", LEASE_MS);

    expect(await s.runs.recoverExpired(new Date(now), 3, new Date(now + 2 * LEASE_MS))).toEqual({ requeued: 1, failed: 0 });
    expect(await statusOf(s, run.run_id)).toBe("pending");
    expect(await claim(s, new Date(now + 1), WORKER, LEASE_MS)).toMatchObject({ run_id: run.run_id, attempt: 2 });
  });

  fresh("fails a run lost as many times as attempts allow, marking its thread errored", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    const waiting = await enqueue(s, newRun(threadId));
    let now = Date.now();
    const results: Array<{ requeued: number; failed: number }> = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect(await claim(s, new Date(now), "lost-worker", SECOND)).toMatchObject({ run_id: run.run_id, attempt });
      now += 2 * SECOND;
      results.push(await s.runs.recoverExpired(new Date(now), 2));
    }

    expect(results).toEqual([
      { requeued: 1, failed: 0 },
      { requeued: 0, failed: 1 },
    ]);
    expect(await statusOf(s, run.run_id)).toBe("error");
    const failed = await s.threads.get(threadId);
    expect(failed).toMatchObject({ status: "error", error: { error: "RunAttemptsExhausted" } });
    expect((await claim(s, new Date(now)))?.run_id).toBe(waiting.run_id);
  });

  fresh("counts only lost attempts against the limit, not attempts their worker handed back", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    let now = Date.now();
    // A flapping database: three attempts handed back one after another, each with a new number.
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await claim(s, new Date(now), "flapping-worker", SECOND)).toMatchObject({ run_id: run.run_id, attempt });
      expect(await s.runs.release(run.run_id, "flapping-worker", new Date(now + 1))).toBe(true);
      now += 10;
    }
    expect(await claim(s, new Date(now), "lost-worker", SECOND)).toMatchObject({ run_id: run.run_id, attempt: 4 });
    now += 2 * SECOND;
    expect(await s.runs.recoverExpired(new Date(now), 2)).toEqual({ requeued: 1, failed: 0 });
    expect(await claim(s, new Date(now), "lost-worker", SECOND)).toMatchObject({ run_id: run.run_id, attempt: 5 });
    now += 2 * SECOND;
    expect(await s.runs.recoverExpired(new Date(now), 2)).toEqual({ requeued: 0, failed: 1 });
    expect(await s.threads.get(threadId)).toMatchObject({
      status: "error",
      error: { error: "RunAttemptsExhausted", message: `Run ${run.run_id} was lost by its worker 2 times and will not be retried` },
    });
  });

  // ---- get, list, delete ---------------------------------------------------------------------

  fresh("gets a run by id, and only on its own thread when a thread is given", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));

    expect(await s.runs.get(run.run_id, threadId)).toEqual(run);
    expect(await s.runs.get(run.run_id, await thread(s))).toBeNull();
    expect(await s.runs.get(newId())).toBeNull();
  });

  fresh("lists a thread's runs newest first, filtered by status and paged", async (s) => {
    const threadId = await thread(s);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await enqueue(s, newRun(threadId))).run_id);
    await enqueue(s, newRun(await thread(s)));
    await claim(s);
    await s.runs.finish(ids[0]!, WORKER, success);
    const newestFirst = [...ids].reverse();
    const list = async (status: RunStatus | undefined, limit: number, offset: number) =>
      (await s.runs.list(threadId, status ? { status } : {}, { limit, offset })).map((r) => r.run_id);

    expect(await list(undefined, 10, 0)).toEqual(newestFirst);
    expect(await list(undefined, 2, 1)).toEqual(newestFirst.slice(1, 3));
    expect(await list("pending", 10, 0)).toEqual(newestFirst.slice(0, 3));
    expect(await list("success", 10, 0)).toEqual([ids[0]]);
    expect(await list("error", 10, 0)).toEqual([]);
    expect(await s.runs.list(newId(), {}, { limit: 10, offset: 0 })).toEqual([]);
  });

  fresh("deletes only runs that are neither pending nor running", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));

    expect(await s.runs.delete(run.run_id)).toBe("active");
    await claim(s);
    expect(await s.runs.delete(run.run_id, threadId)).toBe("active");
    await s.runs.finish(run.run_id, WORKER, success);
    expect(await s.runs.delete(run.run_id, await thread(s))).toBeNull();
    expect(await s.runs.delete(run.run_id, threadId)).toBe("deleted");
    expect(await s.runs.get(run.run_id)).toBeNull();
    expect(await s.runs.delete(run.run_id)).toBeNull();
  });

  fresh("deletes a thread's runs with the thread", async (s) => {
    const threadId = await thread(s);
    const run = await enqueue(s, newRun(threadId));
    await claim(s);

    expect(await s.threads.delete(threadId)).toBe(true);
    expect(await s.runs.get(run.run_id)).toBeNull();
    expect(await claim(s)).toBeNull();
  });
}
