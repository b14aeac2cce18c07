// What the runs e2e cases share: the fixture project, the server environment they need, reading a
// whole SSE stream from the SDK, and waiting for a run or thread to reach a status.
import { readdir, readFile } from "node:fs/promises";
import type { Client } from "@langchain/langgraph-sdk";
import { eventually } from "./http.js";
import { fixture } from "./fixture-paths.js";

/** echo, chain, interrupt, custom, slow, fails, parent, chat, whoami, tools: see test/fixtures/runs/src. */
export const RUNS_CONFIG = fixture("runs", "langgraph.json");

/** whoami and slow, with http.configurable_headers passing `x-*` headers except x-user-secret. */
export const RUNS_HEADERS_CONFIG = fixture("runs", "langgraph.headers.json");

/**
 * No shutdown grace: a test that leaves a `slow` run behind must not hold the server's stop for
 * the default 180 s (the harness would SIGKILL it after 10 s anyway).
 */
export const RUNS_ENV = { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" };

export interface Frame {
  event: string;
  data: unknown;
  id?: string;
}

/** Reads a stream from the SDK to its end. */
export async function collect(stream: AsyncIterable<unknown>): Promise<Frame[]> {
  const frames: Frame[] = [];
  for await (const part of stream) frames.push(part as Frame);
  return frames;
}

export const names = (frames: Frame[]): string[] => frames.map((f) => f.event);

export const framesNamed = (frames: Frame[], event: string): Frame[] => frames.filter((f) => f.event === event);

export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";

/** Polls the run until it has `status`; returns it. */
export function runReaches(client: Client, threadId: string, runId: string, status: RunStatus, deadlineMs = 10_000) {
  return eventually(
    `run ${runId} to be ${status}`,
    async () => {
      const run = await client.runs.get(threadId, runId);
      return run.status === status ? run : undefined;
    },
    deadlineMs,
  );
}

/** Polls until GET of the run answers 404 (a rollback deletes the run once its worker stopped). */
export function runIsGone(client: Client, threadId: string, runId: string, deadlineMs = 10_000) {
  return eventually(
    `run ${runId} to be deleted`,
    async () => {
      try {
        await client.runs.get(threadId, runId);
        return undefined;
      } catch (err) {
        if (/HTTP 404/.test(String(err))) return true;
        throw err;
      }
    },
    deadlineMs,
  );
}

/** Polls the thread until it has `status`; returns it. */
export function threadReaches(client: Client, threadId: string, status: "idle" | "busy" | "interrupted" | "error", deadlineMs = 10_000) {
  return eventually(
    `thread ${threadId} to be ${status}`,
    async () => {
      const thread = await client.threads.get(threadId);
      return thread.status === status ? thread : undefined;
    },
    deadlineMs,
  );
}

/** Polls until GET of the thread answers 404. */
export function threadIsGone(client: Client, threadId: string, deadlineMs = 10_000) {
  return eventually(
    `thread ${threadId} to be deleted`,
    async () => {
      try {
        await client.threads.get(threadId);
        return undefined;
      } catch (err) {
        if (/HTTP 404/.test(String(err))) return true;
        throw err;
      }
    },
    deadlineMs,
  );
}

/**
 * The pid of the `gantry dev` process serving `dataDir`, found through /proc (Linux): the harness
 * hides its child process, and a crash test needs to SIGKILL exactly that one.
 */
export async function gantryPid(dataDir: string): Promise<number> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = (await readFile(`/proc/${entry}/cmdline`, "utf8")).split("\0");
    } catch {
      continue; // exited while we looked
    }
    const at = argv.indexOf("--data-dir");
    if (argv.some((a) => a.endsWith("gantry.js")) && argv.includes("dev") && at >= 0 && argv[at + 1] === dataDir) return Number(entry);
  }
  throw new Error(`No gantry dev process found for data dir ${dataDir} (this test needs Linux /proc)`);
}
