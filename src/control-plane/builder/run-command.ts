// Runs one build step as a child process, streaming its output into the revision's log line by
// line. The step ends with its exit code; a step past its deadline, silent for longer than its idle
// limit, or cancelled is killed and counts as failed. Each step leads its own process group, and
// the whole group is killed: git's remote helpers and an install script's children die with it.
import { spawn } from "node:child_process";

export type LineSink = (stream: "stdout" | "stderr", line: string) => void;

export interface StepResult {
  code: number | null;
  /** Set when the step could not start, ran out of time, went silent or was cancelled. */
  error?: string;
  stdout: string;
}

export interface StepOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The user it runs as (a deployment's own, in its sandbox). */
  uid?: number;
  gid?: number;
  /** How the step is named in its errors, when the command is a wrapper (bwrap). */
  name?: string;
  timeoutMs: number;
  /** Killed after this long without a byte of output (git runs with --progress so it speaks). */
  idleMs?: number;
  /** Cancels the step: a newer revision, or the deployment being deleted. */
  signal?: AbortSignal;
  onLine: LineSink;
}

/** Progress output redraws one line with \r; past this much of one line only its tail is kept. */
const MAX_PENDING = 64 * 1024;

export function runStep(command: string, args: string[], options: StepOptions): Promise<StepResult> {
  const name = options.name ?? command;
  return new Promise((done) => {
    let stdout = "";
    let settled = false;
    if (options.signal?.aborted) {
      done({ code: null, error: `${name} was cancelled: ${reasonOf(options.signal)}`, stdout });
      return;
    }
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {}),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    const finish = (result: StepResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(idleTimer);
      options.signal?.removeEventListener("abort", onAbort);
      done(result);
    };
    const stopWith = (error: string) => {
      killGroup();
      finish({ code: null, error, stdout });
    };
    const timer = setTimeout(() => stopWith(`${name} did not finish within ${seconds(options.timeoutMs)} s`), options.timeoutMs);
    let idleTimer: NodeJS.Timeout | undefined;
    const idle = () => {
      if (options.idleMs === undefined) return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => stopWith(`${name} stopped: no output for ${seconds(options.idleMs!)} s (the remote does not answer)`), options.idleMs);
    };
    const onAbort = () => stopWith(`${name} was cancelled: ${reasonOf(options.signal!)}`);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    idle();
    for (const stream of ["stdout", "stderr"] as const) {
      let pending = "";
      child[stream].setEncoding("utf8").on("data", (chunk: string) => {
        idle();
        if (stream === "stdout") stdout += chunk;
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        if (pending.length > MAX_PENDING) pending = pending.slice(pending.lastIndexOf("\r") + 1).slice(-MAX_PENDING);
        for (const raw of lines) {
          // A progress line's last redraw is its final state.
          const line = raw.slice(raw.lastIndexOf("\r", raw.length - 2) + 1);
          if (line.trim()) options.onLine(stream, line.trimEnd());
        }
      });
      child[stream].on("end", () => {
        if (pending.trim()) options.onLine(stream, pending.slice(pending.lastIndexOf("\r") + 1));
      });
    }
    child.once("error", (err) => finish({ code: null, error: `${name} could not start: ${err.message}`, stdout }));
    child.once("close", (code) => {
      // The step is over; anything it left running in its group goes with it.
      killGroup();
      finish({ code, stdout });
    });
  });
}

const seconds = (ms: number) => Math.round(ms / 1000);

const reasonOf = (signal: AbortSignal) => (signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "cancelled"));
