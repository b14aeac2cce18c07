// Cron scheduler figures through the official SDK over HTTP: how fast one scheduler claims due
// crons and creates their runs when many fall due at once. The server reads a clock file, so the
// benchmark makes N one-minute stateless crons, moves the clock onto the minute, and reads the
// span between the first and last "cron fired" log line (server clock). Every cron must fire
// exactly once; a missing or repeated occurrence counts as an error. DATABASE_URL selects PostgreSQL
// (a fresh schema per round, dropped after it), and then the statements each occurrence cost are
// read from /metrics too.
//
// BENCH_ROUNDS rounds (default 3), each on a fresh server, give the spread. Source trees given as
// arguments (`npm run bench:crons -- DIR_A DIR_B`, git worktrees with node_modules) take turns
// round by round, so machine noise falls on each alike.
import { Client } from "@langchain/langgraph-sdk";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { onDatabase, schemaUrl } from "./serve-backends.js";
import { processCpuMs } from "./process-cpu.js";
import { startGantryForBench } from "./start-server.js";
import { percentile, round } from "./stats.js";

const CRONS = Number(process.env.BENCH_CRONS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DATABASE_URL = process.env.DATABASE_URL;
const trees = process.argv.slice(2).map((dir) => resolve(dir));

interface Round {
  tree: string;
  perSecond: number;
  spanMs: number;
  statementsPerOccurrence: number;
  /** Runs already executed when the last occurrence fired: the work that shared the CPU and the pool with firing. */
  finishedWhileFiring: number;
  /** Server CPU (user + system) from the clock move until every occurrence had fired, per occurrence; wall-clock noise does not enter it. */
  cpuMsPerOccurrence: number;
  errors: number;
  load: number;
}

async function oneRound(tree: string | undefined): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), "gantry-bench-clock-"));
  const clockFile = join(dir, "clock");
  writeFileSync(clockFile, "2030-01-01T10:00:30.000Z");
  const schema = DATABASE_URL ? `gantry_crons_${randomBytes(4).toString("hex")}` : undefined;
  const env: Record<string, string> = { GANTRY_CRON_CLOCK_FILE: clockFile, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" };
  if (DATABASE_URL && schema) {
    await onDatabase(DATABASE_URL, `CREATE SCHEMA ${schema}`);
    env.DATABASE_URL = schemaUrl(DATABASE_URL, schema);
  }
  const server = await startGantryForBench(env, ...(tree ? [tree] : []));
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
    const load = loadavg()[0]!;
    const cpuBefore = processCpuMs(server.pid);
    writeFileSync(clockFile, "2030-01-01T10:01:00.000Z");
    const fired = () => server.logs().filter((l) => l.msg === "cron fired" && ids.has(l.cron_id as string));
    const deadline = Date.now() + 120_000;
    while (fired().length < CRONS && Date.now() < deadline) await new Promise((wake) => setTimeout(wake, 100));
    const cpuMsPerOccurrence = (processCpuMs(server.pid) - cpuBefore) / CRONS;
    // One more scheduler pass after the last occurrence: a repeat would show up now.
    writeFileSync(clockFile, "2030-01-01T10:01:30.000Z");
    await new Promise((wake) => setTimeout(wake, 2_000));
    const lines = fired();
    // Every run finished: the statements counted from here cover claiming, creating and running each occurrence.
    const runIds = new Set(lines.map((l) => l.run_id as string));
    const finished = () => server.logs().filter((l) => l.msg === "run finished" && runIds.has(l.run_id as string));
    while (finished().length < runIds.size && Date.now() < deadline + 60_000) await new Promise((wake) => setTimeout(wake, 100));
    const statementsPerOccurrence = ((await statements()) - statementsBefore) / CRONS;
    const perCron = new Map<string, number>();
    for (const l of lines) perCron.set(l.cron_id as string, (perCron.get(l.cron_id as string) ?? 0) + 1);
    const errors = CRONS - perCron.size + [...perCron.values()].filter((n) => n !== 1).length;
    const times = lines.map((l) => Date.parse(l.time as string)).sort((a, b) => a - b);
    const spanMs = times.length > 1 ? times[times.length - 1]! - times[0]! : NaN;
    const lastFired = times[times.length - 1] ?? NaN;
    return {
      tree: tree ?? ".",
      perSecond: (CRONS / spanMs) * 1000,
      spanMs,
      statementsPerOccurrence,
      finishedWhileFiring: finished().filter((l) => Date.parse(l.time as string) <= lastFired).length,
      cpuMsPerOccurrence,
      errors,
      load,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    if (DATABASE_URL && schema) await onDatabase(DATABASE_URL, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

const rounds: Round[] = [];
const turns = trees.length > 0 ? trees : [undefined];
for (let i = 0; i < ROUNDS; i++) {
  for (const tree of turns) {
    const result = await oneRound(tree);
    rounds.push(result);
    process.stderr.write(`round ${i + 1} ${result.tree}: ${round(result.perSecond, 0)} crons/s, load ${result.load.toFixed(1)}\n`);
  }
}
const rows = turns.flatMap((tree) => {
  const mine = rounds.filter((r) => r.tree === (tree ?? "."));
  const rates = mine.map((r) => r.perSecond);
  const label = tree ? ` (${tree})` : "";
  return [
    { metric: `due crons fired at once${label}`, value: CRONS, unit: "crons" },
    { metric: `occurrences claimed and run created, median of ${mine.length}${label}`, value: round(percentile(rates, 50), 0), unit: "crons/s" },
    { metric: `  min-max${label}`, value: `${round(Math.min(...rates), 0)}-${round(Math.max(...rates), 0)}`, unit: "crons/s" },
    {
      metric: `first to last run created, median (server log)${label}`,
      value: round(
        percentile(
          mine.map((r) => r.spanMs),
          50,
        ),
        0,
      ),
      unit: "ms",
    },
    {
      metric: `PostgreSQL statements per occurrence (claim, run creation and the run itself)${label}`,
      value: round(
        percentile(
          mine.map((r) => r.statementsPerOccurrence),
          50,
        ),
        2,
      ),
      unit: "statements",
    },
    {
      metric: `server CPU per occurrence from the clock move to the last run created, median (runs executing meanwhile included)${label}`,
      value: round(
        percentile(
          mine.map((r) => r.cpuMsPerOccurrence),
          50,
        ),
        2,
      ),
      unit: "ms",
    },
    {
      metric: `runs finished while firing, median${label}`,
      value: percentile(
        mine.map((r) => r.finishedWhileFiring),
        50,
      ),
      unit: "runs",
    },
    {
      metric: `1-min load at the clock move, min-max${label}`,
      value: `${Math.min(...mine.map((r) => r.load)).toFixed(1)}-${Math.max(...mine.map((r) => r.load)).toFixed(1)}`,
      unit: "",
    },
    { metric: `errors (missing or repeated occurrences)${label}`, value: mine.reduce((n, r) => n + r.errors, 0), unit: "" },
  ];
});
console.table(rows);
console.log(JSON.stringify({ bench: "crons", backend: DATABASE_URL ? "postgres" : "sqlite", rounds, rows }));
process.exit(rounds.some((r) => r.errors > 0) ? 1 : 0);
