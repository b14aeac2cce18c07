// Deployment data on the embedded SQLite file: one per deployment, shared by its revisions.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe } from "vitest";
import { deploymentDataCases } from "./data.cases.js";

describe("deployment data on SQLite", { timeout: 120_000 }, () => {
  deploymentDataCases("sqlite", () => ({
    command: "dev",
    env: {},
    async exists(cp, id) {
      return existsSync(join(cp.dataDir, "deployments", id, "data", "gantry.sqlite"));
    },
  }));
});
