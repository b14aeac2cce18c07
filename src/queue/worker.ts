// The queue worker: claims runs up to its concurrency, heartbeats their leases, passes cancels to
// the graphs through AbortSignals, and sweeps runs whose worker died. Wake-ups and cancels arrive
// on the bus (from this process or another replica); a slow poll and the heartbeat stay as the
// safety net, so a lost message costs one poll interval, never a run.
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { RunSlot } from "../domain/runs.js";
import { isUnavailable } from "../errors.js";
import type { MessageBus } from "../events/event-bus.js";
import type { RunEventLog } from "../events/run-event-log.js";
import { wakeLoop } from "../events/wake-loop.js";
import type { Logger } from "../logging.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import type { Storage } from "../storage/ports.js";
import type { CancelAction, ClaimedRun } from "../storage/run-ports.js";
import { executeRun } from "./execute-run.js";
import type { RunObserver } from "../observe/run-observer.js";
import { CANCEL_TOPIC, parseCancel, WAKE_TOPIC } from "./run-signals.js";

export interface WorkerOptions {
  workerId: string;
  /** Runs executed at once (N_JOBS_PER_WORKER). */
  concurrency: number;
  leaseMs: number;
  heartbeatMs: number;
  pollMs: number;
  sweepMs: number;
  maxAttempts: number;
  timeoutMs: number;
  /** See ExecutionContext.unresumableRetainMs. */
  unresumableRetainMs: number;
}

interface ActiveRun {
  controller: AbortController;
  action?: CancelAction;
  /** Set when shutdown's grace period ran out: the run goes back to the queue, not to an outcome. */
  handOff?: boolean;
  /** Set when a heartbeat found the run no longer held here: it stops and records nothing. */
  leaseLost?: boolean;
  /** Until its graph has stopped: then only its outcome is being recorded, and its slot is free. */
  executing: boolean;
  done: Promise<void>;
}

/**
 * Runs recording their outcome hold no slot, but at most this many per slot: a database slow to
 * take outcomes slows the claims down instead of piling finished runs up in memory.
 */
const RECORDING_PER_SLOT = 1;

export interface StopOptions {
  graceMs: number;
  /** Runs still running after the grace period are handed back for another worker; otherwise interrupted. */
  handOff: boolean;
}

export class Worker {
  private readonly active = new Map<string, ActiveRun>();
  /** Runs in `active` whose graph is still going. */
  private executing = 0;
  /** Slots held by runs being created on this process (see RunSlot). */
  private reserved = 0;
  /** Claiming, from start() until shutdown or stopClaiming(). */
  private started = false;
  private stopping = false;
  // Storage logs an outage once; repeating it at every poll would bury everything else.
  private readonly claims = wakeLoop(
    () => this.fill(),
    (err) => this.deps.log[isUnavailable(err) ? "debug" : "warn"]("claiming runs failed; will retry at the next poll", { err }),
  );
  private wakeTimer: NodeJS.Timeout | null = null;
  /** The last pass took a run for every free slot: more may be due, so the next claims without a read first. */
  private backlog = false;
  /** Wake-ups from outside a run's end: bus messages, polls, timers, released slots. */
  private wakes = 0;
  /**
   * `wakes` as it was when the last pass began, if that pass found no run due: until another
   * wake-up arrives, no run has become claimable but one held behind a run of this worker's, and
   * then the read says so (it is due) and this stays null. A run's end skips its pass then.
   */
  private idleSince: number | null = null;
  /** Polling and sweeping: stopped as soon as shutdown begins. */
  private readonly timers: NodeJS.Timeout[] = [];
  /** Kept through the grace period, so the leases of runs still finishing don't lapse. */
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly deps: {
      storage: Storage;
      store: BaseStore;
      graphs: GraphRegistry;
      events: RunEventLog;
      log: Logger;
      /** Absent when webhooks are disabled; see ExecutionContext. */
      webhooks?: { recorded: () => void };
      /** Wake-ups and cancels (run-signals.ts). */
      bus: MessageBus;
      /**
       * Taken before each sweep, so one replica at a time sweeps (the sweep is safe to run
       * concurrently; the lock only saves the duplicate work). Absent: always sweep.
       */
      sweepLock?: () => Promise<boolean>;
      /** See ExecutionContext. */
      observer?: RunObserver;
    },
    private readonly options: WorkerOptions,
  ) {}

  async start(): Promise<void> {
    const { bus, log } = this.deps;
    this.started = true;
    this.unsubscribe.push(
      await bus.subscribe(WAKE_TOPIC, () => this.wake()),
      await bus.subscribe(CANCEL_TOPIC, (message) => {
        const cancel = parseCancel(message);
        if (cancel) this.cancel(cancel.run_id, cancel.action);
        else log.warn("ignored a malformed cancel message");
      }),
    );
    this.timers.push(
      setInterval(() => this.wake(), this.options.pollMs),
      setInterval(() => void this.sweep(), this.options.sweepMs),
    );
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.options.heartbeatMs);
    for (const t of [...this.timers, this.heartbeatTimer]) t.unref();
    this.wake();
  }

  /** Runs this worker executes at once at most, and now: lg_api_workers_* on /metrics. */
  load(): { max: number; active: number } {
    return { max: this.options.concurrency, active: this.executing };
  }

  /** Claims as many runs as there are free slots. Calls while a fill is under way coalesce into one more. */
  wake(): void {
    this.wakes += 1;
    this.claims.wake();
  }

  /** A free slot for a run created here, or undefined when every slot is taken or the worker stops. */
  reserve(): RunSlot | undefined {
    if (!this.started || this.stopping || this.freeSlots() <= 0) return undefined;
    this.reserved += 1;
    let held = true;
    const settle = () => {
      if (!held) return false;
      held = false;
      this.reserved -= 1;
      return true;
    };
    return {
      claimFor: { workerId: this.options.workerId, leaseMs: this.options.leaseMs },
      start: (run) => {
        if (!settle()) return;
        if (!this.stopping) return this.launch(run);
        // Shutdown began while the run was being created: another worker takes it from the queue.
        void this.deps.storage.runs
          .release(run.run_id, this.options.workerId, new Date())
          .catch((err: unknown) =>
            this.deps.log.warn("handing back a run created during shutdown failed; the sweeper will requeue it", { run_id: run.run_id, err }),
          );
      },
      release: () => {
        if (settle()) this.wake();
      },
    };
  }

  /** Stops a run this worker holds; false when it isn't here (another process may hold it). */
  cancel(runId: string, action: CancelAction): boolean {
    const run = this.active.get(runId);
    if (!run) return false;
    run.action ??= action;
    run.controller.abort();
    return true;
  }

  /**
   * Recovers runs left running by a worker that stopped. By default only leases that ran out;
   * `expiredBefore` in the future also takes leases still running (a process alone on its database).
   */
  async recover(expiredBefore = new Date()): Promise<void> {
    const { requeued, failed } = await this.deps.storage.runs.recoverExpired(new Date(), this.options.maxAttempts, expiredBefore);
    if (requeued || failed) this.deps.log.warn("recovered runs whose worker stopped", { requeued, failed });
    // Requeued runs publish no wake-up of their own.
    if (requeued && this.started && !this.stopping) this.wake();
  }

  /**
   * Claims nothing more; runs under way go on, with their leases renewed. A replaced revision does
   * this first, so runs created on its successor are never executed here.
   */
  async stopClaiming(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    await this.claims.stop();
  }

  /** Stops claiming, waits up to graceMs for running runs, then hands back or interrupts what is left. */
  async stop({ graceMs, handOff }: StopOptions): Promise<void> {
    await this.stopClaiming();
    const all = () => Promise.all([...this.active.values()].map((r) => r.done));
    const grace = new Promise<"timeout">((done) => setTimeout(() => done("timeout"), graceMs).unref());
    if ((await Promise.race([all(), grace])) === "timeout") {
      if (this.active.size > 0)
        this.deps.log.warn(handOff ? "grace period over; handing running runs back to the queue" : "grace period over; interrupting running runs", {
          runs: this.active.size,
        });
      for (const run of this.active.values()) {
        if (handOff) run.handOff = true;
        else run.action ??= "interrupt";
        run.controller.abort();
      }
      await all();
    }
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    // Only now: a cancel sent during the grace period must still reach its run.
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  private async fill(): Promise<void> {
    const { storage } = this.deps;
    const wakes = this.wakes;
    this.idleSince = null;
    const due = (at: Date | null) => at !== null && at.getTime() <= Date.now();
    // One read says whether any run is due before a claim opens a write transaction; most wake-ups
    // (a run of this worker ending, say) find nothing to do. Not after a pass that filled every
    // slot: runs were likely left waiting, and the claim itself says whether any is.
    let next = this.backlog ? undefined : await storage.runs.nextAvailableAt();
    this.backlog = false;
    if (next === undefined || due(next)) {
      // Every free slot in one claim: under a backlog, claiming one run per round trip was what
      // bounded a replica's throughput (docs/benchmarks.md).
      let claimed = 0;
      let free = this.freeSlots();
      for (; free > 0 && !this.stopping; free = this.freeSlots()) {
        const runs = await storage.runs.claim(this.options.workerId, this.options.leaseMs, new Date(), free);
        for (const run of runs) this.launch(run);
        claimed += runs.length;
        if (runs.length < free) break;
      }
      if (free <= 0 && !this.stopping) {
        this.backlog = true;
        return;
      }
      if (claimed > 0 || next === undefined) next = await storage.runs.nextAvailableAt();
    }
    if (!due(next!)) this.idleSince = wakes;
    this.scheduleNextDelayed(next!);
  }

  private freeSlots(): number {
    const { concurrency } = this.options;
    return Math.min(concurrency - this.executing, (1 + RECORDING_PER_SLOT) * concurrency - this.active.size) - this.reserved;
  }

  private launch(run: ClaimedRun): void {
    // A lease that lapsed while the database was away can be requeued and claimed back by this very
    // worker while the run still executes here: the claim renewed the lease, the execution goes on.
    if (this.active.has(run.run_id)) return;
    const controller = new AbortController();
    const entry: ActiveRun = { controller, executing: true, done: Promise.resolve() };
    this.executing += 1;
    // A run's slot is for its graph: recording its outcome (a few round trips) frees it for the next run.
    const executed = (wake: boolean) => {
      if (!entry.executing) return;
      entry.executing = false;
      this.executing -= 1;
      if (wake) this.wakeAfterTurn();
    };
    if (run.cancel_action) {
      entry.action = run.cancel_action;
      controller.abort();
    }
    entry.done = executeRun(run, {
      storage: this.deps.storage,
      store: this.deps.store,
      graphs: this.deps.graphs,
      events: this.deps.events,
      workerId: this.options.workerId,
      log: this.deps.log,
      signal: controller.signal,
      cancelAction: () => entry.action,
      handingOff: () => entry.handOff === true,
      leaseLost: () => entry.leaseLost === true,
      timeoutMs: this.options.timeoutMs,
      unresumableRetainMs: this.options.unresumableRetainMs,
      executed: () => executed(true),
      ...(this.deps.webhooks ? { webhooks: this.deps.webhooks } : {}),
      ...(this.deps.observer ? { observer: this.deps.observer } : {}),
    })
      .catch((err: unknown) =>
        isUnavailable(err) ? this.requeueAfterOutage(run, err) : this.deps.log.error("run execution failed unexpectedly", { run_id: run.run_id, err }),
      )
      .finally(() => {
        executed(false);
        this.active.delete(run.run_id);
        this.wakeAfterTurn();
      });
    this.active.set(run.run_id, entry);
  }

  /**
   * A slot came free. After this turn's work: the run's waiting client gets its answer before the
   * queue is read. Nothing to read when no run was due at the last read and no wake-up came since:
   * a run created pending since then published one (a lost one costs a poll, as ever).
   */
  private wakeAfterTurn(): void {
    setImmediate(() => {
      if (!this.stopping && this.idleSince !== this.wakes) this.claims.wake();
    });
  }

  /**
   * A run that lost the database mid-way recorded nothing: it goes back to the queue, at once if the
   * database is already back, otherwise when its lease lapses and a sweeper requeues it. Its next
   * attempt resumes from its last checkpoint.
   */
  private async requeueAfterOutage(run: ClaimedRun, err: unknown): Promise<void> {
    const released = await this.deps.storage.runs.release(run.run_id, this.options.workerId, new Date()).catch(() => false);
    this.deps.log.warn("run stopped: the database is unreachable", {
      run_id: run.run_id,
      requeued: released ? "now" : "when its lease lapses",
      err: (err as Error).message,
    });
  }

  /** A run with after_seconds becomes eligible later: wake up exactly then instead of polling for it. */
  private scheduleNextDelayed(next: Date | null): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (!next) return;
    const delay = next.getTime() - Date.now();
    if (delay <= 0 || delay > this.options.pollMs) return;
    this.wakeTimer = setTimeout(() => this.wake(), delay + 1);
    this.wakeTimer.unref();
  }

  private async heartbeat(): Promise<void> {
    if (this.active.size === 0) return;
    try {
      const { cancels, lost } = await this.deps.storage.runs.heartbeat(this.options.workerId, [...this.active.keys()], this.options.leaseMs, new Date());
      for (const [runId, action] of cancels) this.cancel(runId, action);
      for (const runId of lost) this.lose(runId);
    } catch (err) {
      this.deps.log[isUnavailable(err) ? "debug" : "warn"]("heartbeat failed; leases may lapse if this continues", { err });
    }
  }

  /**
   * The run's lease is gone (this process was frozen or cut off past it, and the run was requeued
   * or taken by another worker): its graph stops at once. Its checkpoint writes are refused by
   * storage anyway; stopping saves the work and the events nobody should see.
   */
  private lose(runId: string): void {
    const run = this.active.get(runId);
    if (!run?.executing || run.leaseLost) return;
    run.leaseLost = true;
    this.deps.log.warn("run stopped: its lease was lost to another worker", { run_id: runId });
    run.controller.abort();
  }

  private async sweep(): Promise<void> {
    try {
      if (this.deps.sweepLock && !(await this.deps.sweepLock())) return;
      // Renew this worker's own leases first: after an outage longer than a lease, its runs still
      // executing here must not be swept as if their worker had died.
      await this.heartbeat();
      await this.recover();
    } catch (err) {
      this.deps.log[isUnavailable(err) ? "debug" : "warn"]("sweeping expired runs failed", { err });
    }
  }
}
