// The time the cron subsystem reads: the system clock, or for tests an instant kept in a file
// (GANTRY_CRON_CLOCK_FILE), read again at every call, so a test process can move time on and see
// a one-minute schedule fire without waiting a minute. Only schedules read it: runs, TTLs and
// record timestamps keep the real time.
import { readFileSync } from "node:fs";

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function fileClock(path: string): Clock {
  return () => {
    let text: string;
    try {
      text = readFileSync(path, "utf8").trim();
    } catch (err) {
      throw new Error(`Cannot read the cron clock file ${path} (GANTRY_CRON_CLOCK_FILE): ${(err as Error).message}`);
    }
    const at = Date.parse(text);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(at)) {
      throw new Error(`The cron clock file ${path} (GANTRY_CRON_CLOCK_FILE) must hold one ISO-8601 instant such as 2030-01-01T10:00:00Z, not '${text}'`);
    }
    return new Date(at);
  };
}
