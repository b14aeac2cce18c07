import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startWalCheckpointer, type WalCheckpointer } from "./wal-checkpointer.js";

describe("startWalCheckpointer", () => {
  let dir: string;
  let db: Database.Database;
  let checkpointer: WalCheckpointer | undefined;
  const problems: string[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gantry-wal-"));
    db = new Database(join(dir, "db.sqlite"));
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT)");
    problems.length = 0;
  });

  afterEach(async () => {
    await checkpointer?.stop();
    checkpointer = undefined;
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (rows: number) => {
    const insert = db.prepare("INSERT INTO items (body) VALUES (?)");
    for (let i = 0; i < rows; i++) insert.run("x".repeat(1000));
  };
  const databaseBytes = () => statSync(join(dir, "db.sqlite")).size;

  it("turns the committing connection's own checkpoints off and copies the WAL into the database from its thread", async () => {
    checkpointer = startWalCheckpointer(db, join(dir, "db.sqlite"), { intervalMs: 50, restartFrames: 100_000, onProblem: (p) => problems.push(p) });
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const before = databaseBytes();
    // About 1,500 pages: past the 1,000 at which the connection would have checkpointed itself.
    write(5000);

    await expect.poll(databaseBytes, { timeout: 20_000, interval: 50 }).toBeGreaterThan(before + 4_000_000);
    expect(problems).toEqual([]);
  });

  // PASSIVE checkpoints alone never let a writer that keeps committing, as a busy server does
  // between its other work, start the WAL over: the WAL grew by every page ever written.
  it("keeps the WAL bounded while a writer keeps committing", async () => {
    checkpointer = startWalCheckpointer(db, join(dir, "db.sqlite"), { intervalMs: 50, restartFrames: 256, onProblem: (p) => problems.push(p) });
    const walBytes = () => statSync(join(dir, "db.sqlite-wal")).size;
    // Until its thread has started (seconds, on a loaded machine) nothing copies the WAL: the
    // writer starts once the first checkpoint has landed, and then writes a set amount, not for a set time.
    write(20);
    const empty = databaseBytes();
    await expect.poll(databaseBytes, { timeout: 20_000, interval: 20 }).toBeGreaterThan(empty);
    const target = databaseBytes() + 4_000_000;
    let largest = walBytes();
    while (databaseBytes() < target) {
      write(20);
      largest = Math.max(largest, walBytes());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }

    // Before, the WAL ended up many times the size of the database it had been copied into (554 MB
    // beside 22 MB); on a busy machine the thread may lag a little, never by that much.
    expect(largest).toBeLessThan(2 * databaseBytes());
    expect(problems).toEqual([]);
  });

  it("gives checkpoints back to the connection when its thread stops without being asked", async () => {
    checkpointer = startWalCheckpointer(db, join(dir, "missing", "db.sqlite"), { intervalMs: 50, restartFrames: 100_000, onProblem: (p) => problems.push(p) });

    await expect.poll(() => problems.length, { timeout: 20_000, interval: 20 }).toBeGreaterThan(0);
    expect(problems[0]).toMatch(/checkpoint thread (failed|stopped).*committing thread again/);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
  });

  // The thread is unreferenced while it runs, so a process with nothing else to do must still wait
  // for it when stopping: a storage closed last thing in a script used to end the process mid-close.
  it("keeps the process alive until its last checkpoint is done when stopped", () => {
    const script = `
      const { default: Database } = await import("better-sqlite3");
      const { startWalCheckpointer } = await import(${JSON.stringify(new URL("./wal-checkpointer.ts", import.meta.url).href)});
      const db = new Database(${JSON.stringify(join(dir, "db.sqlite"))});
      const checkpointer = startWalCheckpointer(db, ${JSON.stringify(join(dir, "db.sqlite"))}, { intervalMs: 1000, restartFrames: 100_000, onProblem: () => {} });
      await checkpointer.stop();
      db.close();
      console.log("closed");
    `;
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8", cwd: process.cwd() });
    expect(output.trim()).toBe("closed");
  });
});
