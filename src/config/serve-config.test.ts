import { describe, expect, it } from "vitest";
import { StartupError } from "../errors.js";
import { loadServeConfig } from "./server-config.js";

const CONFIG = new URL("../../test/fixtures/graphs/langgraph.json", import.meta.url).pathname;
const BOTH = { DATABASE_URL: "postgres://db.example:5432/app", REDIS_URL: "redis://cache.example:6379" };

describe("gantry serve configuration", () => {
  it("names only the URL that is missing", () => {
    expect(() => loadServeConfig({ config: CONFIG }, { DATABASE_URL: BOTH.DATABASE_URL })).toThrow(
      new StartupError(
        "gantry serve needs REDIS_URL (Redis; or REDIS_URI, REDIS_URI_CUSTOM); set it, or run `gantry dev` for the embedded single-process server",
      ),
    );
    expect(() => loadServeConfig({ config: CONFIG }, { REDIS_URL: BOTH.REDIS_URL })).toThrow(
      /needs DATABASE_URL \(PostgreSQL; or DATABASE_URI, POSTGRES_URI_CUSTOM\); set it/,
    );
  });

  it("refuses an unknown role", () => {
    expect(() => loadServeConfig({ config: CONFIG, role: "boss" }, BOTH)).toThrow("--role must be one of all, api, worker, got 'boss'");
  });

  it("defaults to every role on port 8123 on all interfaces, with the gantry: key prefix", () => {
    const config = loadServeConfig({ config: CONFIG }, BOTH, false);
    expect(config).toMatchObject({
      role: "all",
      port: 8123,
      host: "0.0.0.0",
      databaseUrl: BOTH.DATABASE_URL,
      redis: { url: BOTH.REDIS_URL, keyPrefix: "gantry:" },
    });
  });

  it("prepares statements unless GANTRY_POSTGRES_PREPARED_STATEMENTS turns it off", () => {
    expect(loadServeConfig({ config: CONFIG }, BOTH, false).postgresPreparedStatements).toBe(true);
    expect(loadServeConfig({ config: CONFIG }, { ...BOTH, GANTRY_POSTGRES_PREPARED_STATEMENTS: "false" }, false).postgresPreparedStatements).toBe(false);
    expect(() => loadServeConfig({ config: CONFIG }, { ...BOTH, GANTRY_POSTGRES_PREPARED_STATEMENTS: "no" }, false)).toThrow(
      /GANTRY_POSTGRES_PREPARED_STATEMENTS is invalid/,
    );
  });

  it("reads lease timings from the environment, renewing at least twice per lease", () => {
    const config = loadServeConfig(
      { config: CONFIG, role: "worker" },
      { ...BOTH, GANTRY_RUN_LEASE_MS: "1500", GANTRY_RUN_SWEEP_MS: "500", REDIS_KEY_PREFIX: "a:" },
      false,
    );
    expect(config.queue).toMatchObject({ leaseMs: 1500, heartbeatMs: 750, sweepMs: 500 });
    expect(config.redis.keyPrefix).toBe("a:");
  });

  it("keeps the events of a run that did not ask for stream_resumable 10 s, or as long as GANTRY_UNRESUMABLE_RETAIN_MS says", () => {
    expect(loadServeConfig({ config: CONFIG }, BOTH, false).queue.unresumableRetainMs).toBe(10_000);
    expect(loadServeConfig({ config: CONFIG }, { ...BOTH, GANTRY_UNRESUMABLE_RETAIN_MS: "250" }, false).queue.unresumableRetainMs).toBe(250);
    expect(() => loadServeConfig({ config: CONFIG }, { ...BOTH, GANTRY_UNRESUMABLE_RETAIN_MS: "soon" }, false)).toThrow(
      /GANTRY_UNRESUMABLE_RETAIN_MS is invalid/,
    );
  });
});
