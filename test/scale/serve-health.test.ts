// Liveness apart from readiness under `gantry serve`, with PostgreSQL and Redis each behind a TCP
// proxy of the test's own that can make it hang (bytes stop, nothing is refused). `/ok` is liveness:
// it answers 200 from the process alone, whatever the dependencies do. `/ok?check_db=1` is
// readiness: 503 naming what hangs, within a second, with Retry-After. An API call refused because
// PostgreSQL cannot be reached carries Retry-After too.
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, request, sdkClient, type RawResponse } from "../e2e/http.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { SERVE_CONFIG } from "./serve-cluster.js";

/** An orchestrator's probe timeout is about a second: both answers must come within it. */
const PROBE_BUDGET_MS = 1_000;

function proxyTo(url: string, defaultPort: number): Promise<TcpProxy> {
  const parsed = new URL(url);
  return startTcpProxy({ target: { host: parsed.hostname, port: Number(parsed.port || defaultPort) } });
}

function throughProxy(url: string, proxy: TcpProxy): URL {
  const parsed = new URL(url);
  parsed.host = `127.0.0.1:${proxy.port}`;
  return parsed;
}

await describeWithPostgresAndRedis("gantry serve health: liveness and readiness", () => {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  let postgres: TcpProxy;
  let redis: TcpProxy;
  let replica: RunningGantry;

  /** A GET and how long it took. */
  async function timed(path: string): Promise<RawResponse & { ms: number }> {
    const started = performance.now();
    const response = await request(replica.url, "GET", path);
    return { ...response, ms: performance.now() - started };
  }

  async function expectLiveAndUnready(service: "database" | "redis", label: string): Promise<number[]> {
    const latencies: number[] = [];
    // Several probes in a row: each answers on time, not only the first while a ping is pending.
    for (let i = 0; i < 3; i++) {
      const [live, ready] = await Promise.all([timed("/ok"), timed("/ok?check_db=1")]);
      expect(live).toMatchObject({ status: 200, json: { ok: true } });
      expect(live.ms).toBeLessThan(PROBE_BUDGET_MS);
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ ok: false, detail: `Unhealthy: cannot reach ${label}`, services: { [service]: "unreachable" } });
      expect(ready.headers.get("retry-after")).toBe("2");
      expect(ready.ms).toBeLessThan(PROBE_BUDGET_MS);
      latencies.push(Math.round(ready.ms));
    }
    return latencies;
  }

  beforeAll(async () => {
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    postgres = await proxyTo(TEST_DATABASE_URL, 5432);
    redis = await proxyTo(TEST_REDIS_URL, 6379);
    const databaseUrl = throughProxy(TEST_DATABASE_URL, postgres);
    databaseUrl.searchParams.set("options", `-c search_path=${schema}`);
    replica = await startGantry({
      command: "serve",
      config: SERVE_CONFIG,
      env: { DATABASE_URL: databaseUrl.toString(), REDIS_URL: throughProxy(TEST_REDIS_URL, redis).toString(), REDIS_KEY_PREFIX: prefix },
    });
  }, 120_000);

  afterAll(async () => {
    postgres?.resume();
    redis?.resume();
    await replica?.stop().catch(() => {});
    await postgres?.close();
    await redis?.close();
    await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await deleteKeys(prefix).catch(() => {});
  });

  it("answers liveness from the process alone and readiness after asking PostgreSQL and Redis", async () => {
    expect(await timed("/ok")).toMatchObject({ status: 200, json: { ok: true } });
    expect((await timed("/ok")).json).not.toHaveProperty("services");
    expect(await timed("/ok?check_db=1")).toMatchObject({ status: 200, json: { ok: true, services: { database: "ok", redis: "ok" } } });
    const doc = (await request(replica.url, "GET", "/openapi.json")).json as { paths: Record<string, { get: { description?: string } }> };
    expect(doc.paths["/ok"]?.get.description).toMatch(/liveness.*readiness.*Retry-After/s);
  });

  it("stays live and turns unready within a second while PostgreSQL hangs, and ready again once it answers", async () => {
    postgres.pause();
    const latencies = await expectLiveAndUnready("database", "PostgreSQL");
    postgres.resume();
    await eventually("readiness once PostgreSQL answers", async () => ((await timed("/ok?check_db=1")).status === 200 ? true : undefined), 15_000);
    console.info(`readiness while PostgreSQL hangs: ${latencies.join(", ")} ms`);
  }, 60_000);

  it("stays live and turns unready within a second while Redis hangs, and ready again once it answers", async () => {
    redis.pause();
    const latencies = await expectLiveAndUnready("redis", "Redis");
    redis.resume();
    await eventually("readiness once Redis answers", async () => ((await timed("/ok?check_db=1")).status === 200 ? true : undefined), 15_000);
    expect(await sdkClient(replica.url).runs.wait(null, "slow", { input: { ms: 1, label: "after Redis" } })).toMatchObject({ log: ["after Redis"] });
    console.info(`readiness while Redis hangs: ${latencies.join(", ")} ms`);
  }, 60_000);

  it("refuses an API call with 503 and Retry-After when PostgreSQL cannot be reached", async () => {
    // Pooled connections cut, new ones never answered: the request gives up at the connect timeout.
    postgres.cutAll();
    postgres.pause();
    const refused = await request(replica.url, "POST", "/threads", { body: {} });
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ detail: expect.stringContaining("PostgreSQL cannot be reached") });
    expect(refused.headers.get("retry-after")).toBe("2");
    postgres.resume();
    const created = await eventually("the API once PostgreSQL answers", async () => {
      const response = await request(replica.url, "POST", "/threads", { body: {} });
      return response.status === 200 ? response : undefined;
    });
    expect(created.json).toHaveProperty("thread_id");
    expect(replica.output()).toContain("PostgreSQL connection lost");
  }, 60_000);
});
