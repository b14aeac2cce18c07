import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logging.js";

/** What a process logging to its real stdout prints, one parsed JSON line per entry. */
function loggedBy(script: string): Array<Record<string, unknown>> {
  const source = `import { createLogger } from ${JSON.stringify(new URL("./logging.ts", import.meta.url).href)};\n${script}`;
  const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], { encoding: "utf8", cwd: process.cwd() });
  return output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("logger", () => {
  it("writes a line with its bound and own fields, errors made readable, to the given writer at once", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "info", json: true, write: (line) => lines.push(line) }).child({ run_id: "r1" });
    log.debug("hidden");
    log.warn("failed", { err: new TypeError("bad input"), attempt: 2 });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: "warn", msg: "failed", run_id: "r1", attempt: 2, err: { name: "TypeError", message: "bad input" } });
    expect(Date.parse(entry.time as string)).not.toBeNaN();
  });

  it("formats stdout lines after the turn's work, keeping the time each was logged at", () => {
    const [first, second] = loggedBy(`
      const log = createLogger({ level: "info", json: true });
      log.info("first", { n: 1 });
      const until = Date.now() + 40;
      while (Date.now() < until);
      log.info("second", { n: 2 });
    `);
    expect(first).toMatchObject({ msg: "first", n: 1 });
    expect(second).toMatchObject({ msg: "second", n: 2 });
    expect(Date.parse(second!.time as string) - Date.parse(first!.time as string)).toBeGreaterThanOrEqual(35);
  });

  it("reports a line it cannot format instead of throwing from the flush, and keeps the others", () => {
    const lines = loggedBy(`
      const log = createLogger({ level: "info", json: true });
      const loop = {};
      loop.self = loop;
      log.info("before");
      log.info("circular", { loop });
      log.info("after");
      setTimeout(() => log.info("still running"), 5);
    `);
    expect(lines.map((line) => line.msg)).toEqual(["before", "a log line could not be formatted", "after", "still running"]);
    expect(lines[1]).toMatchObject({ level: "error", error: expect.stringMatching(/circular/i) });
  });
});
