// Starts `gantry dev` as a child process for a benchmark and stops it afterwards.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface BenchServer {
  url: string;
  pid: number;
  /** The server's JSON log lines so far. */
  logs(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server under load. */
export async function startGantryForBench(env: Record<string, string> = {}): Promise<BenchServer> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const dataDir = mkdtempSync(join(tmpdir(), "gantry-bench-"));
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(ROOT, "bin/gantry.js"), "dev", "--config", join(ROOT, "bench/langgraph.json"), "--port", "0", "--data-dir", dataDir],
    { env: { ...process.env, LOG_JSON: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const url = await new Promise<string>((resolveUrl, reject) => {
    const deadline = setTimeout(() => reject(new Error(`gantry did not start in 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split("\n")) {
        if (!line.includes('"listening"')) continue;
        clearTimeout(deadline);
        resolveUrl((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`gantry exited with ${code}:\n${output}`)));
  });
  return {
    url,
    pid: child.pid!,
    logs: () =>
      output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    async stop() {
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGINT");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
