import { describe, expect, it } from "vitest";
import { GantryError } from "../errors.js";
import { nextRunDate, occurrencesBetween, parseLiveSchedule, parseSchedule } from "./cron-schedule.js";

const utc = (iso: string) => new Date(iso);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(GantryError);
    expect((err as GantryError).kind).toBe("invalid");
    return (err as GantryError).message;
  }
  throw new Error("expected a refusal");
}

describe("cron schedules", () => {
  it("gives the first occurrence strictly after an instant", () => {
    const schedule = parseSchedule("*/15 * * * *", null);
    expect(schedule.after(utc("2030-01-01T10:00:00.000Z"))).toEqual(utc("2030-01-01T10:15:00.000Z"));
    expect(schedule.after(utc("2030-01-01T10:14:59.999Z"))).toEqual(utc("2030-01-01T10:15:00.000Z"));
  });

  it("reads the schedule in its IANA time zone, across a daylight-saving change", () => {
    const schedule = parseSchedule("0 9 * * *", "America/New_York");
    // 9:00 EST is 14:00 UTC; after the March change 9:00 EDT is 13:00 UTC.
    expect(schedule.after(utc("2030-03-09T00:00:00Z"))).toEqual(utc("2030-03-09T14:00:00Z"));
    expect(schedule.after(utc("2030-03-10T00:00:00Z"))).toEqual(utc("2030-03-10T13:00:00Z"));
  });

  it("accepts nicknames such as @hourly", () => {
    expect(parseSchedule("@hourly", null).after(utc("2030-01-01T10:20:00Z"))).toEqual(utc("2030-01-01T11:00:00Z"));
  });

  it("refuses a malformed expression, naming the field and the expression", () => {
    expect(refusal(() => parseSchedule("61 * * * *", null))).toMatch(/^Field 'schedule' is not a valid cron expression \('61 \* \* \* \*'\): .*minute/);
    expect(refusal(() => parseSchedule("* * * * * *", null))).toContain("five fields");
    expect(refusal(() => parseSchedule("every minute", null))).toContain("Field 'schedule'");
  });

  it("refuses a time zone that is not an IANA name", () => {
    expect(refusal(() => parseSchedule("* * * * *", "Mars/Olympus"))).toBe(
      "Field 'timezone' is not an IANA time zone name: 'Mars/Olympus' (for example 'Europe/Paris' or 'UTC')",
    );
  });

  it("refuses a schedule that never fires", () => {
    expect(refusal(() => parseLiveSchedule("0 0 30 2 *", null, utc("2030-01-01T00:00:00Z")))).toBe(
      "Field 'schedule' never fires: no date matches '0 0 30 2 *'",
    );
  });

  it("ends the schedule at end_time: an occurrence at end_time counts, a later one does not", () => {
    const schedule = parseSchedule("* * * * *", null);
    const after = utc("2030-01-01T10:00:30Z");
    expect(nextRunDate(schedule, after, utc("2030-01-01T10:01:00Z"))).toEqual(utc("2030-01-01T10:01:00Z"));
    expect(nextRunDate(schedule, after, utc("2030-01-01T10:00:59Z"))).toBeNull();
    expect(nextRunDate(schedule, after, null)).toEqual(utc("2030-01-01T10:01:00Z"));
  });

  it("counts the occurrences in a span, the end included", () => {
    const schedule = parseSchedule("* * * * *", null);
    expect(occurrencesBetween(schedule, utc("2030-01-01T10:01:00Z"), utc("2030-01-01T10:06:00Z"))).toEqual({ count: 5, capped: false });
    expect(occurrencesBetween(schedule, utc("2030-01-01T10:01:00Z"), utc("2030-01-01T10:01:59Z"))).toEqual({ count: 0, capped: false });
    expect(occurrencesBetween(schedule, utc("2030-01-01T00:00:00Z"), utc("2031-01-01T00:00:00Z")).capped).toBe(true);
  });
});
