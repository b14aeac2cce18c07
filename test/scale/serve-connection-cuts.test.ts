// A replica outlives its PostgreSQL connections being cut again and again while runs execute: each
// cut ends every open connection at once (FIN or RST, alternately), landing in transactions,
// checkpoint writes, claims and heartbeats. Before pg clients kept an error listener while checked
// out, a cut there ended the process ("Unhandled 'error' event ... on TimedClient instance"). The
// replica must stay up, log the loss, reconnect by itself, finish every run, and take new ones.
// The cuts come from a TCP proxy of the test's own between the replica and the shared PostgreSQL.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, request, sdkClient } from "../e2e/http.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { deleteKeys, describeWithPostgresAndRedis, freshKeyPrefix, TEST_REDIS_URL } from "../support/redis.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { SERVE_CONFIG } from "./serve-cluster.js";

const CUTS = 12;
const RUNS_PER_CUT = 4;
const TERMINAL = new Set(["success", "error", "interrupted", "timeout"]);

/** The JSON log lines the replica wrote with this message. */
function logLines(replica: RunningGantry, msg: string): Array<Record<string, unknown>> {
  return replica
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === msg);
}

/** A call through the replica, which may be refused while its connections are being re-opened. */
async function whenAnswered<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch {
    return undefined;
  }
}

await describeWithPostgresAndRedis("gantry serve while its PostgreSQL connections are cut", () => {
  const schema = freshSchemaName();
  const prefix = freshKeyPrefix();
  let proxy: TcpProxy;
  let replica: RunningGantry;
  let recordDir: string;

  beforeAll(async () => {
    await onTestDatabase(`CREATE SCHEMA ${schema}`);
    recordDir = await mkdtemp(join(tmpdir(), "gantry-cuts-"));
    const target = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy({ target: { host: target.hostname, port: Number(target.port || 5432) } });
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    url.searchParams.set("options", `-c search_path=${schema}`);
    replica = await startGantry({
      command: "serve",
      config: SERVE_CONFIG,
      env: {
        DATABASE_URL: url.toString(),
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: prefix,
        // A run stopped by a cut goes back to the queue when its lease lapses: short leases keep the test short.
        GANTRY_RUN_LEASE_MS: "3000",
        GANTRY_RUN_HEARTBEAT_MS: "1000",
        GANTRY_RUN_SWEEP_MS: "1000",
        GANTRY_QUEUE_POLL_MS: "200",
      },
    });
  }, 120_000);

  afterAll(async () => {
    await replica?.stop().catch(() => {});
    await proxy?.close();
    await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await deleteKeys(prefix).catch(() => {});
    if (recordDir) await rm(recordDir, { recursive: true, force: true });
  });

  it(`stays up through ${CUTS} cuts mid-run, finishes every run and takes new ones`, async () => {
    const client: Client = sdkClient(replica.url);
    const input = { record_file: join(recordDir, "steps"), pause_ms: 20 };
    expect(await client.runs.wait(null, "steps", { input })).toMatchObject({ done: ["step1", "step2", "step3", "step4", "step5"] });

    const threads = await Promise.all(Array.from({ length: RUNS_PER_CUT }, () => client.threads.create()));
    const runs: Array<{ thread_id: string; run_id: string }> = [];
    let refused = 0;
    // A replica that died under a cut shows why in its last lines (stderr: Node's crash dump).
    const withItsOutput = (err: unknown) => {
      throw new Error(`${(err as Error).message}\nThe replica's last output:\n${replica.output().slice(-3_000)}`);
    };
    for (let cut = 0; cut < CUTS; cut++) {
      for (const thread of threads) {
        const run = await eventually("the replica to accept a run", async () => {
          const created = await whenAnswered(() => client.runs.create(thread.thread_id, "steps", { input, multitaskStrategy: "enqueue" }));
          if (!created) refused += 1;
          return created;
        }).catch(withItsOutput);
        runs.push({ thread_id: thread.thread_id, run_id: run.run_id });
      }
      // Cut while a run executes and the replica holds connections: statements, checkpoint
      // writes and transactions are under way on them.
      await eventually("a run to be executing", async () => {
        if (proxy.connections() === 0) return undefined;
        const statuses = await Promise.all(threads.map((t) => whenAnswered(() => client.threads.get(t.thread_id))));
        return statuses.some((t) => t?.status === "busy") ? true : undefined;
      });
      proxy.cutAll(cut % 2 === 0 ? "close" : "reset");
    }

    const finished = await eventually(
      "every run to finish after the cuts",
      async () => {
        const statuses = await Promise.all(runs.map((r) => whenAnswered(async () => (await client.runs.get(r.thread_id, r.run_id)).status)));
        return statuses.every((s) => s !== undefined && TERMINAL.has(s)) ? statuses : undefined;
      },
      90_000,
    );
    expect(finished.filter((s) => s !== "success")).toEqual([]);

    // Still the same process, taking runs as before.
    expect(await client.runs.wait(null, "steps", { input })).toMatchObject({ done: ["step1", "step2", "step3", "step4", "step5"] });
    expect((await request(replica.url, "GET", "/ok?check_db=1")).status).toBe(200);
    expect(replica.output()).not.toContain("Unhandled 'error' event");
    expect(logLines(replica, "process stopped: an exception escaped every handler")).toEqual([]);
    expect(logLines(replica, "process stopped: a rejected promise had no handler")).toEqual([]);
    expect(logLines(replica, "PostgreSQL connection lost").length).toBeGreaterThan(0);
    expect(logLines(replica, "PostgreSQL connection restored").length).toBeGreaterThan(0);
    console.info(
      `${CUTS} cuts, ${runs.length} runs all succeeded; creates refused during cuts: ${refused}; ` +
        `losses logged: ${logLines(replica, "PostgreSQL connection lost").length}; runs stopped by a cut: ${logLines(replica, "run stopped: the database is unreachable").length}`,
    );
  }, 180_000);
});
