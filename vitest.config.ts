import { defineConfig } from "vitest/config";

/** Pure unit tests: no servers, no child processes, no environment changes. */
const UNIT = ["src/**/*.test.ts", "ui/src/**/*.test.ts"];

export default defineConfig({
  test: {
    pool: "forks",
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine. Most
    // files spend their time waiting on servers they started: at two at a time 1.0-1.5 cores were
    // busy on average, and three took the suite from 813 s to 565 s under the same light load.
    maxWorkers: 3,
    // Tests of a `describe.concurrent` start gantry processes; started all at once (the default is
    // five) on two cores, each took 25-34 s to start. Two at a time, as many as there are cores.
    maxConcurrency: 2,
    // Bounds for a hang, not expectations of speed: every wait inside a test is on an event (a log
    // line, a status). On a machine loaded many times over, a server starts in tens of seconds.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          // Threads, not a fresh process per file: at 1-minute load 9-17 src/ took 171 s in forks and
          // 123 s in threads. Sharing one module graph across files (isolate: false) was faster
          // again (74-125 s) but failed a pure header test once in three runs for a reason not yet
          // found, so each file keeps its own.
          pool: "threads",
        },
      },
      {
        extends: true,
        test: { name: "integration", include: ["test/**/*.test.ts"], globalSetup: ["test/support/schema-cache-setup.ts"] },
      },
    ],
  },
});
