// Stops a server started through npm (`npx gantry serve`, `npm start`) when npm itself goes: a
// SIGTERM sent to npx ends npx without passing the signal on, which left the server running with
// no parent. Only npm as a parent is watched: a server started under nohup or a supervisor that
// later exits is meant to outlive it.
import { readFileSync } from "node:fs";

const CHECK_MS = 1_000;

/** Calls `stop` once when the npm process that started this one has exited; returns the unwatch. */
export function stopWithNpmParent(stop: () => void): () => void {
  const parent = process.ppid;
  if (!startedByNpm(parent)) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function startedByNpm(pid: number): boolean {
  try {
    // Linux: the parent's command line, NUL-separated; npm and npx run as node .../npm-cli.js or npx-cli.js.
    return /(^|[/\0])(npm|npx)(-cli\.js)?(\0|$)/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
  } catch {
    return false;
  }
}
