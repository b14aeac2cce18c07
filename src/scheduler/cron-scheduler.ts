// Fires due crons. Every tick reads the enabled crons whose next_run_date has come, and for each one
// first moves next_run_date on to the occurrence after now, conditionally on the revision it read:
// with several processes on one database, exactly one of them wins that update and creates the run.
// The updates go in chunks of a few crons per statement, each cron still won or lost on its own, and
// the runs of the occurrences a chunk won are created in one more write (thread crons' one by one).
// Occurrences missed while no scheduler ran (downtime) are skipped with a warning: the cron fires
// once for them, never once per missed occurrence. The claim comes before the runs, so a process that
// dies between the two loses the occurrences of the chunks it had claimed and not yet created (at
// most `concurrency` chunks of CLAIM_CHUNK; each of those crons fires again at its next occurrence)
// rather than firing any twice.
import { GantryError, isUnavailable } from "../errors.js";
import type { Logger } from "../logging.js";
import { nextRunDate, occurrencesBetween, parseSchedule } from "../domain/cron-schedule.js";
import type { Cron, CronRepo, StoredCron } from "../storage/cron-ports.js";
import type { Run } from "../storage/records.js";
import type { Clock } from "./clock.js";

export interface CronSchedulerDeps {
  crons: CronRepo;
  /**
   * Creates the run of one occurrence of each cron (the cron service's fire): each answer is the
   * run or the error that refused it; a rejection fails them all.
   */
  fire: (crons: Cron[]) => Promise<Array<Run | Error>>;
  clock: Clock;
  log: Logger;
}

export interface CronSchedulerOptions {
  /** How often due crons are looked for; an occurrence fires at most this late. */
  pollMs: number;
  /** Crons read per query; a tick keeps reading while pages come back full. */
  batch: number;
  /**
   * Occurrences fired at once within a tick. Each one waits on a few database round trips, so
   * crons that fall due together (on the hour) would otherwise queue behind each other.
   */
  concurrency: number;
}

/**
 * Occurrences claimed in one statement, whose runs are then created in one more. 500 crons due at
 * once cost 500 claims and 1,000 run-creating round trips one by one; in chunks of eight, 63 claims
 * and 126 (bench/crons.ts). Larger chunks save little more, and a process dying mid-chunk loses more.
 */
const CLAIM_CHUNK = 8;

/** A due cron with what firing it needs: when it was due, the occurrence after, how many it missed. */
interface Occurrence {
  cron: StoredCron;
  dueAt: Date;
  next: Date | null;
  missed: number | string;
  /** The schedule no longer parses: the claim (next null) stops the cron, and nothing fires. */
  stop?: true;
}

export class CronScheduler {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(
    private readonly deps: CronSchedulerDeps,
    private readonly options: CronSchedulerOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.ticking) this.ticking = this.tick().finally(() => (this.ticking = null));
    }, this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** One pass over the due crons; failures are logged and the next tick tries again. */
  async tick(): Promise<void> {
    const { crons, clock, log } = this.deps;
    let now: Date;
    try {
      now = clock();
    } catch (err) {
      log.warn("cron clock unreadable; no cron fires until it is fixed", { err });
      return;
    }
    let fired = 0;
    // Crons due together mostly share a schedule (on the hour), and croner's search costs more than the rest of a firing.
    const schedules = new Map<string, Omit<Occurrence, "cron">>();
    try {
      for (;;) {
        const due = await crons.due(now, this.options.batch);
        const occurrences = due.map((cron) => this.occurrence(cron, now, schedules));
        // Each worker claims a chunk of occurrences in one statement, then creates the runs of
        // those it won in one more: `concurrency` chunks are in flight at once.
        const chunks: Occurrence[][] = [];
        for (let i = 0; i < occurrences.length; i += CLAIM_CHUNK) chunks.push(occurrences.slice(i, i + CLAIM_CHUNK));
        let taken = 0;
        const fireNext = async () => {
          while (taken < chunks.length) {
            const won = await this.claimAndFire(chunks[taken++]!, now);
            fired += won;
          }
        };
        await Promise.all(Array.from({ length: Math.min(this.options.concurrency, chunks.length) }, fireNext));
        if (due.length < this.options.batch) break;
      }
    } catch (err) {
      // Storage logs an outage once; repeating it at every tick would bury everything else.
      log[isUnavailable(err) ? "debug" : "warn"]("looking for due crons failed; will retry at the next tick", { err });
    }
    // Tests read this line to know a scheduler has finished a pass at a given clock time.
    log.debug("cron tick", { now: now.toISOString(), fired });
  }

  /** The occurrence `cron` is due for, and the one after it; a schedule that no longer parses has none. */
  private occurrence(cron: StoredCron, now: Date, schedules: Map<string, Omit<Occurrence, "cron">>): Occurrence {
    const key = JSON.stringify([cron.schedule, cron.timezone, cron.end_time, cron.next_run_date]);
    const dueAt = new Date(cron.next_run_date!);
    let found = schedules.get(key);
    try {
      if (!found) {
        const schedule = parseSchedule(cron.schedule, cron.timezone);
        const next = nextRunDate(schedule, now, cron.end_time === null ? null : new Date(cron.end_time));
        const skipped = occurrencesBetween(schedule, dueAt, now);
        schedules.set(key, (found = { dueAt, next, missed: skipped.capped ? `${skipped.count}+` : skipped.count }));
      }
      return { cron, ...found };
    } catch (err) {
      // Stored schedules were checked when written; one that no longer parses is stopped, not retried every tick.
      this.deps.log.error("cron schedule no longer parses; the cron is stopped", {
        cron_id: cron.cron_id,
        schedule: cron.schedule,
        timezone: cron.timezone,
        err,
      });
      return { cron, dueAt, next: null, missed: 0, stop: true };
    }
  }

  /** Claims the occurrences, then creates the runs of those won together; returns how many were won. */
  private async claimAndFire(occurrences: Occurrence[], now: Date): Promise<number> {
    const won = await this.deps.crons.advance(occurrences.map((o) => ({ cron_id: o.cron.cron_id, revision: o.cron.revision, next: o.next })));
    const owned: Array<{ occurrence: Occurrence; log: Logger }> = [];
    for (const occurrence of occurrences) {
      if (occurrence.stop) continue;
      const log = this.deps.log.child({ cron_id: occurrence.cron.cron_id });
      if (won.has(occurrence.cron.cron_id)) owned.push({ occurrence, log });
      else log.debug("cron occurrence claimed elsewhere", { scheduled_for: occurrence.dueAt.toISOString() });
    }
    if (owned.length === 0) return 0;
    for (const { occurrence, log } of owned) {
      if (occurrence.missed === 0) continue;
      log.warn("cron missed occurrences while no scheduler ran; firing once for them", {
        scheduled_for: occurrence.dueAt.toISOString(),
        missed: occurrence.missed,
        now: now.toISOString(),
      });
    }
    let answers: Array<Run | Error>;
    try {
      answers = await this.deps.fire(owned.map(({ occurrence }) => occurrence.cron));
    } catch (err) {
      answers = owned.map(() => (err instanceof Error ? err : new Error(String(err))));
    }
    owned.forEach(({ occurrence, log }, i) => this.report(occurrence, answers[i]!, log));
    return owned.length;
  }

  /** Logs what became of an occurrence this process owned. */
  private report({ dueAt, next }: Occurrence, answer: Run | Error, log: Logger): void {
    if (!(answer instanceof Error)) {
      log.info("cron fired", {
        run_id: answer.run_id,
        thread_id: answer.thread_id,
        scheduled_for: dueAt.toISOString(),
        next_run_date: next?.toISOString() ?? null,
      });
      return;
    }
    // The occurrence is spent either way: a refusal now (a busy thread under reject, a deleted
    // assistant) would be refused again on every retry.
    if (answer instanceof GantryError && !isUnavailable(answer))
      log.warn("cron occurrence skipped: its run was refused", { scheduled_for: dueAt.toISOString(), detail: answer.message });
    else log.error("cron occurrence skipped: creating its run failed", { scheduled_for: dueAt.toISOString(), err: answer });
  }
}
