// A throwaway redis-server of a test's own, for tests that stop, restart or stall Redis (the shared
// one on 6379 serves other test files at the same time). It keeps nothing on disk (no RDB, no AOF),
// so a restart brings it back empty, as a Redis without persistence comes back after a crash.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { beforeAll, describe, it } from "vitest";
import { freePort } from "./free-port.js";

const HOW_TO_INSTALL = "install redis-server (apt-get install redis-server) or put it on PATH";
const READY_DEADLINE_MS = 20_000;

export interface PrivateRedis {
  url: string;
  port: number;
  /** Starts the server (again, after stop) on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Shuts the server down; its clients' connections are closed. */
  stop(): Promise<void>;
  /** stop() then start(): the server comes back empty. */
  restart(): Promise<void>;
  /** Stops the server if it runs and removes its directory. */
  dispose(): Promise<void>;
}

/** The redis-server on PATH, if any. */
export function redisServerBinary(): string | undefined {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, "redis-server"))
    .find((path) => existsSync(path));
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once("exit", () => done()));
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = redisServerBinary();
  if (!binary) throw new Error(`redis-server was not found; ${HOW_TO_INSTALL}`);
  const dir = await mkdtemp(join(tmpdir(), "gantry-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"];
    const started = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    let output = "";
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => {
        started.kill("SIGKILL");
        fail(new Error(`redis-server did not accept connections within ${READY_DEADLINE_MS / 1000} s:\n${output}`));
      }, READY_DEADLINE_MS);
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        started.off("exit", onExit);
        outcome();
      };
      const onExit = (code: number | null) => settle(() => fail(new Error(`redis-server exited (code ${code}) before it was ready:\n${output}`)));
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) settle(ready);
      };
      started.stdout!.on("data", onData);
      started.stderr!.on("data", onData);
      started.once("error", (err) => settle(() => fail(err)));
      started.once("exit", onExit);
    });
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running) return;
    const done = exited(running);
    running.kill("SIGTERM");
    await done;
  };

  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async dispose() {
      try {
        await stop();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await start();
  } catch (err) {
    await redis.dispose();
    throw err;
  }
  return redis;
}

/** `describe` when redis-server is installed; otherwise a visibly skipped suite, or a failing one in CI. */
export function describeWithRedisServer(name: string, body: () => void): void {
  if (redisServerBinary()) {
    describe(name, body);
    return;
  }
  const reason = "the redis-server binary is not installed";
  if (process.env.CI === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reason}; CI needs it: ${HOW_TO_INSTALL}`);
      });
      it("runs a private Redis", () => {});
    });
    return;
  }
  describe.skip(`${name} (skipped: ${reason}; to run it, ${HOW_TO_INSTALL})`, body);
}
