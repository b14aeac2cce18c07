import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "ui/src/**/*.test.ts"],
    pool: "forks",
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine. Most
    // files spend their time waiting on servers they started, so two at a time keep both cores busy.
    maxWorkers: 2,
    // Tests of a `describe.concurrent` start gantry processes; started all at once (the default is
    // five) on two cores, each took 25-34 s to start. Two at a time, as many as there are cores.
    maxConcurrency: 2,
    // Bounds for a hang, not expectations of speed: every wait inside a test is on an event (a log
    // line, a status). On a machine loaded many times over, a server starts in tens of seconds.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
