// Runs one build step as a child process, streaming its output into the revision's log line by
// line. The step ends with its exit code; a step past its deadline is killed and counts as failed.
import { spawn } from "node:child_process";

export type LineSink = (stream: "stdout" | "stderr", line: string) => void;

export interface StepResult {
  code: number | null;
  /** Set when the step could not start or ran out of time. */
  error?: string;
  stdout: string;
}

export function runStep(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; onLine: LineSink },
): Promise<StepResult> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let settled = false;
    const finish = (result: StepResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(result);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: null, error: `${command} did not finish within ${Math.round(options.timeoutMs / 1000)} s`, stdout });
    }, options.timeoutMs);
    for (const stream of ["stdout", "stderr"] as const) {
      let pending = "";
      child[stream].setEncoding("utf8").on("data", (chunk: string) => {
        if (stream === "stdout") stdout += chunk;
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop()!;
        for (const line of lines) if (line.trim()) options.onLine(stream, line);
      });
      child[stream].on("end", () => {
        if (pending.trim()) options.onLine(stream, pending);
      });
    }
    child.once("error", (err) => finish({ code: null, error: `${command} could not start: ${err.message}`, stdout }));
    child.once("close", (code) => finish({ code, stdout }));
  });
}
