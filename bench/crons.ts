// Cron scheduler figures through the official SDK over HTTP: how fast one scheduler claims due
// crons and creates their runs when many fall due at once. The server reads a clock file, so the
// benchmark makes N one-minute stateless crons, moves the clock onto the minute, and reads the
// span between the first and last "cron fired" log line (server clock). Every cron must fire
// exactly once; a missing or repeated occurrence counts as an error. DATABASE_URL selects PostgreSQL,
// and then the statements each occurrence cost are read from /metrics too.
import { Client } from "@langchain/langgraph-sdk";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGantryForBench } from "./start-server.js";
import { round } from "./stats.js";

const CRONS = Number(process.env.BENCH_CRONS ?? 500);

const dir = mkdtempSync(join(tmpdir(), "gantry-bench-clock-"));
const clockFile = join(dir, "clock");
writeFileSync(clockFile, "2030-01-01T10:00:30.000Z");
const server = await startGantryForBench({ GANTRY_CRON_CLOCK_FILE: clockFile, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" });
let errors = 0;
try {
  const client = new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });
  const ids = new Set<string>();
  for (let i = 0; i < CRONS; i++) {
    const cron = await client.crons.create("echo", { schedule: "* * * * *", input: { message: `m${i}` }, onRunCompleted: "keep" });
    ids.add(cron.cron_id);
  }
  const statements = async () =>
    ((await (await fetch(`${server.url}/metrics?format=json`)).json()) as { postgres_statements?: number }).postgres_statements ?? NaN;
  const statementsBefore = await statements();
  writeFileSync(clockFile, "2030-01-01T10:01:00.000Z");
  const fired = () => server.logs().filter((l) => l.msg === "cron fired" && ids.has(l.cron_id as string));
  const deadline = Date.now() + 120_000;
  while (fired().length < CRONS && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 100));
  // One more scheduler pass after the last occurrence: a repeat would show up now.
  writeFileSync(clockFile, "2030-01-01T10:01:30.000Z");
  await new Promise((wake) => setTimeout(wake, 2_000));
  const lines = fired();
  // Every run finished: the statements counted from here cover claiming, creating and running each occurrence.
  const runIds = new Set(lines.map((l) => l.run_id as string));
  const finished = () => server.logs().filter((l) => l.msg === "run finished" && runIds.has(l.run_id as string)).length;
  while (finished() < runIds.size && Date.now() < deadline + 60_000) await new Promise((wake) => setTimeout(wake, 100));
  const statementsPerOccurrence = ((await statements()) - statementsBefore) / CRONS;
  const perCron = new Map<string, number>();
  for (const l of lines) perCron.set(l.cron_id as string, (perCron.get(l.cron_id as string) ?? 0) + 1);
  errors += CRONS - perCron.size + [...perCron.values()].filter((n) => n !== 1).length;
  const times = lines.map((l) => Date.parse(l.time as string)).sort((a, b) => a - b);
  const spanMs = times.length > 1 ? times[times.length - 1]! - times[0]! : NaN;
  const rows = [
    { metric: "due crons fired at once", value: CRONS, unit: "crons" },
    { metric: "first to last run created (server log)", value: round(spanMs, 0), unit: "ms" },
    { metric: "occurrences claimed and run created", value: round((CRONS / spanMs) * 1000, 0), unit: "crons/s" },
    { metric: "PostgreSQL statements per occurrence (claim, run creation and the run itself)", value: round(statementsPerOccurrence, 2), unit: "statements" },
    { metric: "errors (missing or repeated occurrences)", value: errors, unit: "" },
  ];
  console.table(rows);
  console.log(JSON.stringify({ bench: "crons", backend: process.env.DATABASE_URL ? "postgres" : "sqlite", rows }));
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(errors > 0 ? 1 : 0);
