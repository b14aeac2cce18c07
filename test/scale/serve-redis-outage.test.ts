// A replica outlives a Redis restart: while Redis is down `/ok` answers 503 naming it, and once
// Redis is back the replica reconnects by itself and serves runs again. The test runs a private
// redis-server on a port of its own, so stopping it disturbs nobody else's tests.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, request, sdkClient } from "../e2e/http.js";
import type { RunningGantry } from "../support/gantry-process.js";
import { describeWithPostgresAndRedis } from "../support/redis.js";
import { openServeCluster, type ServeCluster } from "./serve-cluster.js";
import { freePort } from "../support/free-port.js";

/** A throwaway redis-server; resolves once it accepts connections. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((ready, fail) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) ready();
    });
    child.once("error", fail);
    child.once("exit", (code) => fail(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return child;
}

async function stopRedis(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGKILL");
  await exited;
}

await describeWithPostgresAndRedis("gantry serve through a Redis restart", () => {
  let cluster: ServeCluster;
  let redis: ChildProcess | undefined;
  let port: number;
  let replica: RunningGantry;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    cluster = await openServeCluster({ REDIS_URL: `redis://127.0.0.1:${port}` });
    replica = await cluster.start("all");
  });

  afterAll(async () => {
    await cluster?.dispose().catch(() => {});
    await stopRedis(redis);
  });

  it("answers 503 naming Redis while it is down, then reconnects and runs again", async () => {
    const client = sdkClient(replica.url);
    expect(await client.runs.wait(null, "slow", { input: { ms: 1, label: "before" } })).toMatchObject({ log: ["before"] });

    await stopRedis(redis);
    const down = await eventually("readiness (/ok?check_db=1) to report Redis down", async () => {
      const response = await request(replica.url, "GET", "/ok?check_db=1");
      return response.status === 503 ? response : undefined;
    });
    expect(down.json).toMatchObject({ ok: false, detail: expect.stringContaining("Redis"), services: { database: "ok", redis: "unreachable" } });

    redis = await startRedis(port);
    await eventually(
      "readiness to report healthy again",
      async () => ((await request(replica.url, "GET", "/ok?check_db=1")).status === 200 ? true : undefined),
      20_000,
    );
    expect(await client.runs.wait(null, "slow", { input: { ms: 1, label: "after" } })).toMatchObject({ log: ["after"] });
    expect(replica.output()).toContain("Redis connection restored");
  }, 60_000);
});
