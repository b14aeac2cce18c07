// Two `gantry serve` replicas (role all) on a PostgreSQL and a Redis of the suite's own, each replica
// reaching both through TCP proxies of its own, so a test can cut, stall or restart what one replica
// or both see. The replicas run the fault fixture (test/fixtures/faults), which records every node
// execution in a side file. A replica a fault killed is noted and replaced, so one defect does not
// hide the next scenario's.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { sdkClient } from "../e2e/http.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { executionsOf, type Execution } from "./executions.js";

export const FAULTS_CONFIG = resolve(fileURLToPath(new URL("../fixtures/faults/langgraph.json", import.meta.url)));
export const GRAPH = "faults";

/** Leases short enough that a lapse, a sweep and a takeover fit in a few seconds. */
export const SHORT_LEASES = { GANTRY_RUN_LEASE_MS: "3000", GANTRY_RUN_HEARTBEAT_MS: "1000", GANTRY_RUN_SWEEP_MS: "1000", GANTRY_QUEUE_POLL_MS: "500" };

const run = promisify(execFile);

export interface LogLine {
  msg: string;
  level?: string;
  run_id?: string;
  attempt?: number;
  [key: string]: unknown;
}

export interface Replica {
  name: string;
  gantry: RunningGantry;
  url: string;
  client: Client;
  pid: number;
  workerId: string;
  /** The replica's own way to PostgreSQL and to Redis. */
  toPostgres: TcpProxy;
  toRedis: TcpProxy;
  /** Its JSON log lines so far, from character `from` of its output on. */
  logs(from?: number): LogLine[];
  /** Whether its process still accepts connections (a process that exited refuses them). */
  answers(): Promise<boolean>;
}

export interface FaultCluster {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  /** The current replicas; a replaced one takes its predecessor's place. */
  replicas: Replica[];
  /** Every execution the fixture recorded for the run. */
  executions(runId: string): Promise<Execution[]>;
  /** A statement on the database, directly (not through a replica's proxy). */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The replica whose worker holds the run's lease, and the other one. */
  byOwner(runId: string): Promise<[owner: Replica, other: Replica]>;
  /** The replica whose process has this pid. */
  byPid(pid: number): Replica;
  /** Replaces every replica that no longer answers; returns, for each that had exited, its name and first error line. */
  replaceExited(): Promise<string[]>;
  dispose(): Promise<void>;
}

/** The pid of the process listening on the port (the replica's own: `gantry serve` runs in the spawned node). */
async function listenerPid(port: number): Promise<number> {
  const { stdout } = await run("ss", ["-Hltnp", `sport = :${port}`]);
  const pid = /pid=(\d+)/.exec(stdout)?.[1];
  if (!pid) throw new Error(`No process found listening on port ${port} (ss -ltnp said: ${stdout.trim() || "nothing"})`);
  return Number(pid);
}

export function parseLogs(output: string): LogLine[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/info`, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch (err) {
    // A frozen or busy process is still there: only a refused connection means it has gone.
    return (err as { cause?: { code?: string } }).cause?.code !== "ECONNREFUSED";
  }
}

export async function openFaultCluster(env: Record<string, string> = {}): Promise<FaultCluster> {
  const dir = await mkdtemp(join(tmpdir(), "gantry-faults-"));
  const recordFile = join(dir, "executions.jsonl");
  const postgres = await startPrivatePostgres().catch(async (err) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  let redis: PrivateRedis | undefined;
  const proxies: TcpProxy[] = [];
  const replicas: Replica[] = [];
  const everyGantry: RunningGantry[] = [];

  const startReplica = async (name: string, toPostgres: TcpProxy, toRedis: TcpProxy): Promise<Replica> => {
    const gantry = await startGantry({
      command: "serve",
      config: FAULTS_CONFIG,
      args: ["--role", "all"],
      env: {
        DATABASE_URL: `postgres://postgres@127.0.0.1:${toPostgres.port}/postgres`,
        REDIS_URL: `redis://127.0.0.1:${toRedis.port}`,
        LANGGRAPH_POSTGRES_POOL_MAX_SIZE: "8",
        GANTRY_FAULTS_RECORD_FILE: recordFile,
        ...env,
      },
    });
    everyGantry.push(gantry);
    const listening = parseLogs(gantry.output()).find((l) => l.msg === "listening");
    return {
      name,
      gantry,
      url: gantry.url,
      client: sdkClient(gantry.url),
      pid: await listenerPid(gantry.port),
      workerId: String(listening?.worker_id),
      toPostgres,
      toRedis,
      logs: (from = 0) => parseLogs(gantry.output().slice(from)),
      answers: () => answers(gantry.url),
    };
  };

  const cluster: FaultCluster = {
    postgres,
    get redis() {
      return redis!;
    },
    replicas,
    executions: (runId) => executionsOf(recordFile, runId),
    async query(sql, params) {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async byOwner(runId) {
      const [row] = await cluster.query<{ lease_owner: string | null }>("SELECT lease_owner FROM runs WHERE run_id = $1", [runId]);
      const owner = replicas.find((r) => r.workerId === row?.lease_owner);
      const other = replicas.find((r) => r !== owner);
      if (!owner || !other) throw new Error(`No replica holds run ${runId} (lease owner ${row?.lease_owner})`);
      return [owner, other];
    },
    byPid(pid) {
      const replica = replicas.find((r) => r.pid === pid);
      if (!replica) throw new Error(`No replica has pid ${pid} (replicas: ${replicas.map((r) => `${r.name}=${r.pid}`).join(", ")})`);
      return replica;
    },
    async replaceExited() {
      const exited: string[] = [];
      for (const [i, replica] of replicas.entries()) {
        if (await replica.answers()) continue;
        // What it said last: an exit must be explained at error level, and an uncaught throw shows here.
        const reason = replica.gantry
          .output()
          .split("\n")
          .find((line) => /^\w*Error\b|"level":"(error|fatal)"/.test(line));
        const lastWords = replica.gantry.output().trim().split("\n").slice(-2).join(" | ");
        exited.push(`${replica.name} (${(reason ?? `no error line; last: ${lastWords}`).slice(0, 300)})`);
        await replica.gantry.stop();
        replicas[i] = await startReplica(replica.name, replica.toPostgres, replica.toRedis);
      }
      return exited;
    },
    async dispose() {
      await Promise.all(everyGantry.map((g) => g.stop()));
      await Promise.all(proxies.map((p) => p.close()));
      await redis?.dispose();
      await postgres.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    redis = await startPrivateRedis();
    for (const name of ["A", "B"]) {
      const toPostgres = await startTcpProxy({ target: { host: "127.0.0.1", port: postgres.port } });
      const toRedis = await startTcpProxy({ target: { host: "127.0.0.1", port: redis.port } });
      proxies.push(toPostgres, toRedis);
      replicas.push(await startReplica(name, toPostgres, toRedis));
    }
  } catch (err) {
    await cluster.dispose();
    throw err;
  }
  return cluster;
}
