// The store e2e cases on the embedded SQLite default, and the start-up and configuration checks
// that do not depend on the backend.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure, startGantry, type RunningGantry } from "../support/gantry-process.js";
import { openSqliteStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { request } from "./http.js";
import { describeStoreE2E } from "./store.cases.js";

describeStoreE2E("sqlite", openSqliteStore);

describe("store configuration", () => {
  it("refuses to start with a provider embedding whose package is not installed, naming the package", async () => {
    const run = await runGantryExpectingFailure(["dev", "--config", fixture("store", "langgraph.provider.json"), "--port", "0"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("store.index.embed 'openai:text-embedding-3-small' needs the package @langchain/openai");
    expect(run.stderr).toContain("npm install @langchain/openai");
  });

  describe("http.disable_store", () => {
    let server: RunningGantry;
    beforeAll(async () => {
      server = await startGantry({ config: fixture("store", "langgraph.disabled.json") });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it("removes every /store route and reports the store as off in /info", async () => {
      for (const [method, path] of [
        ["PUT", "/store/items"],
        ["GET", "/store/items?namespace=a&key=k"],
        ["DELETE", "/store/items"],
        ["POST", "/store/items/search"],
        ["POST", "/store/namespaces"],
      ] as const) {
        expect((await request(server.url, method, path, method === "GET" ? {} : { body: {} })).status).toBe(404);
      }
      expect((await request(server.url, "GET", "/info")).json).toMatchObject({ flags: { store: false } });
    });
  });
});
