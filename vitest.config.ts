import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "ui/src/**/*.test.ts"],
    pool: "forks",
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine. Most
    // files spend their time waiting on servers they started, so two at a time keep both cores busy.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
