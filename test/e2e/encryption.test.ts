// Encryption at rest on the embedded SQLite file, and the start-up errors of a bad key.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure } from "../support/gantry-process.js";
import { openSqliteStore } from "./backends.js";
import { describeEncryptionE2E } from "./encryption.cases.js";
import { describeStateEncryptionE2E } from "./encryption-state.cases.js";
import { GRAPHS_CONFIG } from "./fixture-paths.js";

describeEncryptionE2E("sqlite", openSqliteStore);
describeStateEncryptionE2E("sqlite", openSqliteStore);

describe("a key that cannot be used stops start-up", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gantry-encryption-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const dev = () => ["dev", "--config", GRAPHS_CONFIG, "--port", "0", "--data-dir", join(dataDir, randomUUID())];

  it("names LANGGRAPH_AES_KEY, its length, and how to make a good one, for a short key", async () => {
    const run = await runGantryExpectingFailure(dev(), { LANGGRAPH_AES_KEY: "too-short" });
    expect(run.code, run.stderr).not.toBe(0);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^gantry: LANGGRAPH_AES_KEY is 9 bytes long; an AES key must be exactly 16, 24 or 32 bytes/);
    expect(lines[0]).toContain("openssl rand -hex 16");
  });

  it("names the retired key that is wrong", async () => {
    const run = await runGantryExpectingFailure(dev(), { LANGGRAPH_AES_KEY: "a".repeat(32), GANTRY_AES_PREVIOUS_KEYS: `${"b".repeat(16)},${"c".repeat(20)}` });
    expect(run.stderr).toMatch(/^gantry: GANTRY_AES_PREVIOUS_KEYS \(key 2\) is 20 bytes long/);
  });

  it("refuses a JSON key the server reads, and a store key named both sealed and clear", async () => {
    const read = await runGantryExpectingFailure(dev(), { LANGGRAPH_AES_KEY: "a".repeat(32), LANGGRAPH_AES_JSON_KEYS: "token,graph_id" });
    expect(read.stderr).toMatch(/^gantry: LANGGRAPH_AES_JSON_KEYS names graph_id, which the server reads and cannot encrypt; remove it/);
    const both = await runGantryExpectingFailure(dev(), {
      LANGGRAPH_AES_KEY: "a".repeat(32),
      LANGGRAPH_AES_JSON_KEYS: "token",
      GANTRY_AES_STORE_CLEAR_KEYS: "kind,token",
    });
    expect(both.stderr).toMatch(/^gantry: token is named in both LANGGRAPH_AES_JSON_KEYS \(sealed\) and GANTRY_AES_STORE_CLEAR_KEYS \(clear\); keep it in one/);
  });

  it("refuses retired keys or JSON keys without a current key", async () => {
    const run = await runGantryExpectingFailure(dev(), { GANTRY_AES_PREVIOUS_KEYS: "b".repeat(16) });
    expect(run.stderr).toMatch(/^gantry: GANTRY_AES_PREVIOUS_KEYS is set but LANGGRAPH_AES_KEY is not/);
  });
});
