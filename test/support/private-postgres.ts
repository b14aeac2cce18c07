// A throwaway PostgreSQL cluster of a test's own, for tests that stop and restart the database
// (the shared one on 5432 serves other test files at the same time). It lives in a temp dir with its
// unix socket, listens on 127.0.0.1 at a free port, and trusts every local connection. initdb and
// postgres refuse to run as root, so under root they run as the `postgres` OS user.
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, it } from "vitest";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

const HOW_TO_INSTALL = "install the PostgreSQL server binaries (apt-get install postgresql) or put initdb and pg_ctl on PATH";

export interface PrivatePostgres {
  /** A connection URL for the cluster's `postgres` database. */
  url: string;
  port: number;
  /** Starts the cluster (again, after stop) on the same port and data. */
  start(): Promise<void>;
  /** Fast shutdown: open connections are ended, as in a database restart. */
  stop(): Promise<void>;
  /** Stops the cluster if it runs and removes its directory. */
  dispose(): Promise<void>;
}

/** The directory holding initdb and pg_ctl: the PATH's, or the newest Debian-style install. */
export function postgresBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const initdb = join(dir, "initdb");
    if (dir && existsSync(initdb)) return dirname(realpathSync(initdb));
  }
  const versions = ["17", "16", "15", "14", "13"];
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((dir) => existsSync(join(dir, "initdb")));
}

/** Runs a server binary, as the `postgres` OS user when this process is root. */
async function runAsOwner(binary: string, args: string[]): Promise<void> {
  const asRoot = userInfo().uid === 0;
  const [command, fullArgs] = asRoot ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
  try {
    await run(command, fullArgs, { timeout: 60_000 });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${binary} ${args.join(" ")} failed: ${(err as Error).message}\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`initdb was not found; ${HOW_TO_INSTALL}`);
  const dir = await mkdtemp(join(tmpdir(), "gantry-pg-"));
  const dataDir = join(dir, "data");
  const logFile = join(dir, "server.log");
  const port = await freePort();
  let running = false;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
      await runAsOwner(join(bin, "pg_ctl"), ["-D", dataDir, "-o", options, "-l", logFile, "-w", "-t", "60", "start"]);
      running = true;
    },
    async stop() {
      if (!running) return;
      await runAsOwner(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "-t", "60", "stop"]);
      running = false;
    },
    async dispose() {
      try {
        if (running) await runAsOwner(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]);
      } finally {
        running = false;
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    if (userInfo().uid === 0) {
      const { stdout } = await run("id", ["-u", "postgres"]);
      const { stdout: group } = await run("id", ["-g", "postgres"]);
      await chown(dir, Number(stdout.trim()), Number(group.trim()));
    }
    await runAsOwner(join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
    await cluster.start();
  } catch (err) {
    await cluster.dispose();
    throw err;
  }
  return cluster;
}

/** `describe` when initdb is installed; otherwise a visibly skipped suite, or a failing one in CI. */
export function describeWithPostgresBinaries(name: string, body: () => void): void {
  if (postgresBinDir()) {
    describe(name, body);
    return;
  }
  const reason = "the PostgreSQL server binaries (initdb, pg_ctl) are not installed";
  if (process.env.CI === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reason}; CI needs them: ${HOW_TO_INSTALL}`);
      });
      it("runs a private PostgreSQL", () => {});
    });
    return;
  }
  describe.skip(`${name} (skipped: ${reason}; to run it, ${HOW_TO_INSTALL})`, body);
}
