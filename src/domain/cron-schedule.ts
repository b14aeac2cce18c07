// Cron expressions (five fields or an @nickname) read in an IANA time zone: validation with a
// message that names what is wrong, and the occurrences that follow an instant. Parsing and
// calendar arithmetic, DST included, are croner's (docs/decisions.md).
import { Cron } from "croner";
import { invalid } from "../errors.js";

export interface CronSchedule {
  readonly expression: string;
  /** IANA name; null is UTC. */
  readonly timezone: string | null;
  /** The first occurrence strictly after `after`, or null when there is none. */
  after(after: Date): Date | null;
}

/** How many missed occurrences are counted for the log before giving up counting (each step costs about 0.3 ms). */
const MISSED_COUNT_CAP = 1_000;

export function parseSchedule(expression: string, timezone: string | null): CronSchedule {
  if (timezone !== null && !isTimeZone(timezone)) {
    throw invalid(`Field 'timezone' is not an IANA time zone name: '${timezone}' (for example 'Europe/Paris' or 'UTC')`);
  }
  let cron: Cron;
  try {
    cron = new Cron(expression.trim(), { mode: "5-part", timezone: timezone ?? "UTC" });
  } catch (err) {
    const reason = (err as Error).message.replace(/^Cron\w*: /, "");
    throw invalid(`Field 'schedule' is not a valid cron expression ('${expression}'): ${reason}. Use five fields: minute hour day-of-month month day-of-week`);
  }
  return {
    expression,
    timezone,
    after: (instant) => cron.nextRun(instant),
  };
}

/** Like parseSchedule, and refuses a schedule that has no occurrence after `now` (such as 0 0 30 2 *). */
export function parseLiveSchedule(expression: string, timezone: string | null, now: Date): CronSchedule {
  const schedule = parseSchedule(expression, timezone);
  if (schedule.after(now) === null) throw invalid(`Field 'schedule' never fires: no date matches '${expression}'`);
  return schedule;
}

/** The next occurrence after `after`, or null when none is left at or before `endTime`. */
export function nextRunDate(schedule: CronSchedule, after: Date, endTime: Date | null): Date | null {
  const next = schedule.after(after);
  if (next === null || (endTime !== null && next.getTime() > endTime.getTime())) return null;
  return next;
}

/** Occurrences in (from, to]: the ones a scheduler that was away for that span did not fire. */
export function occurrencesBetween(schedule: CronSchedule, from: Date, to: Date): { count: number; capped: boolean } {
  let count = 0;
  let cursor = schedule.after(from);
  while (cursor !== null && cursor.getTime() <= to.getTime()) {
    count += 1;
    if (count >= MISSED_COUNT_CAP) return { count, capped: true };
    cursor = schedule.after(cursor);
  }
  return { count, capped: false };
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
