import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe } from "vitest";
import { openSqliteControlPlaneStore } from "../../src/control-plane/storage/sqlite/store.js";
import { storeCases } from "./store.cases.js";

describe("control-plane store on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "gantry-cp-store-"));
  const store = openSqliteControlPlaneStore(join(dir, "cp.sqlite"));
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  storeCases(() => store);
});
