// The storage conformance suite: cases written against the ports, one file per resource, run by one
// small runner per backend (sqlite.test.ts, postgres.test.ts). A backend that truly can't do
// something skips that case by name, with a reason, in its runner.
import { afterAll, beforeAll, describe, it } from "vitest";
import type { Storage } from "../../../src/storage/ports.js";
import { assistantCases } from "./assistants.cases.js";
import { authFilterCases } from "./auth-filters.cases.js";
import { checkpointCases } from "./checkpoints.cases.js";
import { cronCases } from "./crons.cases.js";
import { migrationCases } from "./migrations.cases.js";
import { runCases } from "./runs.cases.js";
import { storeCases } from "./store.cases.js";
import { threadCases } from "./threads.cases.js";
import { webhookCases } from "./webhooks.cases.js";

/** Every adapter reports the migrations it applied on open; the migration cases read it. */
export type MigratedStorage = Storage & { readonly migrated: string[] };

export interface SkippedCase {
  /** The case's name, exactly as passed to `test`. */
  case: string;
  reason: string;
}

export interface StorageHarness<S extends MigratedStorage = MigratedStorage> {
  /** Opens a storage on a new, empty database. */
  open(): Promise<S>;
  /** Opens another storage on the database `storage` uses, as a second process would. */
  reopen(storage: S): Promise<S>;
  /** Opens two storages on one new, empty database at the same time, as two booting processes would. */
  openTwiceAtOnce(): Promise<[S, S]>;
  /** Closes the storage and removes its database; other storages on it are closed first. */
  close(storage: S): Promise<void>;
  skip: SkippedCase[];
}

export interface CaseContext {
  /** The storage this test file's cases share; each case keeps to its own rows. */
  storage(): Storage;
  /** `it` for a conformance case: a case the backend skips is registered as skipped, with its reason. */
  test(name: string, body: () => Promise<void>): void;
}

export function describeStorageConformance<S extends MigratedStorage>(label: string, harness: StorageHarness<S>): void {
  describe(`storage conformance: ${label}`, () => {
    const names = new Set<string>();
    const test = (name: string, body: () => Promise<void>) => {
      if (names.has(name)) throw new Error(`Two conformance cases are named "${name}"; skips find cases by name`);
      names.add(name);
      const skipped = harness.skip.find((s) => s.case === name);
      if (skipped) it.skip(`${name} [skipped on ${label}: ${skipped.reason}]`, body);
      else it(name, body);
    };

    let opened: S | undefined;
    beforeAll(async () => {
      // Cases register while vitest collects the nested suites, so only now is the list complete.
      const stale = harness.skip.filter((s) => !names.has(s.case));
      if (stale.length > 0) throw new Error(`The ${label} runner skips cases that do not exist: ${stale.map((s) => `"${s.case}"`).join(", ")}`);
      opened = await harness.open();
    });
    afterAll(async () => {
      if (opened) await harness.close(opened);
    });
    const storage = (): S => {
      if (!opened) throw new Error("The conformance storage did not open; see the beforeAll failure");
      return opened;
    };

    describe("assistants", () => assistantCases({ storage, test }));
    describe("threads", () => threadCases({ storage, test }));
    describe("runs", () => runCases({ storage, test }, harness));
    describe("checkpoints", () => checkpointCases({ storage, test }));
    describe("store", () => storeCases({ storage, test }, harness));
    describe("crons", () => cronCases({ storage, test }, harness));
    describe("webhooks", () => webhookCases({ storage, test }, harness));
    describe("migrations", () => migrationCases({ storage, test }, harness));
    describe("auth filters", () => authFilterCases({ storage, test }));
  });
}

/** Runs two opens at once; if one fails, closes the other before rethrowing, so nothing is left open. */
export async function openBoth<S extends Storage>(open: () => Promise<S>): Promise<[S, S]> {
  const [first, second] = await Promise.allSettled([open(), open()]);
  if (first.status === "fulfilled" && second.status === "fulfilled") return [first.value, second.value];
  for (const result of [first, second]) if (result.status === "fulfilled") await result.value.close();
  throw first.status === "rejected" ? first.reason : (second as PromiseRejectedResult).reason;
}
