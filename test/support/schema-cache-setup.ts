// Vitest global setup: one schema cache for every `gantry dev` the suite starts. Each test's data
// dir is new, and without a shared cache every start read its project's TypeScript types again in
// the background: about 3.6 s of CPU per start on a quiet machine, three times the start itself.
// The cache checks every source file's hash, so a shared entry is never stale. One directory per
// run of the suite, so nothing carries over from an earlier run's extractor.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SCHEMA_CACHE_VARIABLE = "GANTRY_TEST_SCHEMA_CACHE";

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "gantry-test-schema-cache-"));
  // Forked test workers inherit the environment of the process that runs this setup.
  process.env[SCHEMA_CACHE_VARIABLE] = dir;
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
