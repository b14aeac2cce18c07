// Stops a server started through npm (`npx gantry serve`, `npm start`) when npm itself goes: a
// SIGTERM sent to npx ends npx without passing the signal on, which left the server running with
// no parent. Only npm as an ancestor is watched (npm runs the bin through `sh -c`, so it is the
// parent or the grandparent): a server started under nohup or a supervisor that later exits is
// meant to outlive it.
import { readFileSync } from "node:fs";

const CHECK_MS = 1_000;
const LEVELS = 3;

/** Calls `stop` once when the npm process that started this one has exited; returns the unwatch. */
export function stopWithNpmParent(stop: () => void): () => void {
  const npm = npmAncestor();
  if (npm === undefined) return () => {};
  const timer = setInterval(() => {
    if (alive(npm)) return;
    clearInterval(timer);
    stop();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Linux only (/proc); elsewhere nothing is watched. */
function npmAncestor(): number | undefined {
  let pid = process.ppid;
  for (let level = 0; level < LEVELS && pid > 1; level++) {
    try {
      // npm retitles itself ("npm exec gantry dev"); before that it runs as node .../npm-cli.js.
      if (/(^|[/\0])(npm|npx)(-cli\.js)?([\0 ]|$)/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8"))) return pid;
      // /proc/<pid>/stat: "pid (comm) state ppid ...", where comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
