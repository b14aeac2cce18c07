// Migration cases: opening a migrated database again applies nothing, and two processes opening a
// new database at once both succeed with every migration applied exactly once.
import { expect } from "vitest";
import { newAssistant, newThread } from "./builders.js";
import type { CaseContext, MigratedStorage, StorageHarness } from "./harness.js";

export function migrationCases<S extends MigratedStorage>({ test }: CaseContext, harness: StorageHarness<S>): void {
  test("applies every migration on a new database and none when it is opened again", async () => {
    const first = await harness.open();
    try {
      expect(first.migrated.length).toBeGreaterThan(0);
      const again = await harness.reopen(first);
      try {
        expect(again.migrated).toEqual([]);
        const assistant = await first.assistants.create(newAssistant());
        expect(await again.assistants.get(assistant!.assistant_id)).toEqual(assistant);
      } finally {
        await again.close();
      }
    } finally {
      await harness.close(first);
    }
  });

  test("lets two processes open one new database at the same time", async () => {
    const reference = await harness.open();
    const everyMigration = [...reference.migrated].sort();
    await harness.close(reference);

    const [one, two] = await harness.openTwiceAtOnce();
    try {
      expect(await one.ping()).toBe(true);
      expect(await two.ping()).toBe(true);
      expect([...one.migrated, ...two.migrated].sort()).toEqual(everyMigration);
      const thread = await one.threads.create(newThread());
      expect(await two.threads.get(thread!.thread_id)).toEqual(thread);
    } finally {
      await two.close();
      await harness.close(one);
    }
  });
}
