// Unclaimed runs on new threads share statements (queued as statement-groups.ts queues them). Under
// load most stateless runs are created while the worker's slots are full, so nobody claims them at
// creation; a group of such enqueues goes in one statement whose runs travel as one JSON array (one
// fixed text, so it is prepared once per connection). A lone run's enqueue therefore goes as
// before, one statement, while 32 clients' enqueues go a few to a statement: fewer statements,
// commits and WAL flushes (docs/decisions.md).
//
// Each run of a group is judged as enqueueOnNewThread (runs.ts) judges a lone one: its assistant
// checked, its thread inserted busy unless it exists, its run inserted pending on it; the runs are
// inserted in the callers' order, which gives them their seq, and so their place in the queue, in
// that order. Each enqueue resolves only once its group committed, so it is as durable as before.
import type pg from "pg";
import type { JsonObject } from "../records.js";
import type { EnqueueOptions, EnqueueResult, NewRun } from "../run-ports.js";
import { newThreadTtl } from "../ttl.js";
import { assistantCurrent, COLUMNS, rowToRun, type RunRow } from "./run-rows.js";
import { run as query } from "./sql-helpers.js";
import { statementGroups } from "./statement-groups.js";

interface Row {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  metadata: JsonObject;
  kwargs: NewRun["kwargs"];
  multitask_strategy: NewRun["multitask_strategy"];
  available_at: string;
  thread_metadata: JsonObject;
  ttl_strategy: string | null;
  ttl_minutes: number | null;
  expires_at: string | null;
  assistant_version: number | null;
  assistant_updated_at: string | null;
}

// One statement may not insert a thread twice, so of the runs of a group naming one thread only the
// first with a current assistant may insert it; the others find it taken, as they would have after
// it. Every input row is answered, so a refused assistant and a taken thread can be told apart.
const STATEMENT = `WITH input AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(n integer, run_id text, thread_id text, assistant_id text, created_at timestamptz, metadata jsonb,
                                                     kwargs jsonb, multitask_strategy text, available_at timestamptz, thread_metadata jsonb,
                                                     ttl_strategy text, ttl_minutes float8, expires_at timestamptz,
                                                     assistant_version integer, assistant_updated_at timestamptz)
   ), checked AS (
     SELECT i.*, ${assistantCurrent("i.assistant_id", "i.assistant_version", "i.assistant_updated_at")} AS assistant_current FROM input i
   ), inserting AS (
     SELECT DISTINCT ON (thread_id) * FROM checked WHERE assistant_current ORDER BY thread_id, n
   ), thread AS (
     INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error, ttl_strategy, ttl_minutes, expires_at)
     SELECT thread_id, created_at, created_at, created_at, thread_metadata, 'busy', '{}', NULL, '{}', NULL, ttl_strategy, ttl_minutes, expires_at FROM inserting
     ON CONFLICT (thread_id) DO NOTHING
     RETURNING thread_id
   ), created AS (
     INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, available_at, attempt)
     SELECT inserting.run_id, inserting.thread_id, inserting.assistant_id, inserting.created_at, inserting.created_at, 'pending', inserting.metadata, inserting.kwargs,
            inserting.multitask_strategy, inserting.available_at, 0
     FROM inserting JOIN thread ON thread.thread_id = inserting.thread_id
     ORDER BY inserting.n
     RETURNING ${COLUMNS}
   )
   SELECT checked.n, checked.assistant_current, created.*
   FROM checked LEFT JOIN (inserting JOIN created ON created.run_id = inserting.run_id) ON inserting.n = checked.n
   ORDER BY checked.n`;

/**
 * enqueue of a run on a new thread that nobody claims at creation: the answer enqueueOnNewThread
 * gives, undefined when the thread exists (the caller takes the locking path).
 */
export function newThreadEnqueueGroups(pool: pg.Pool): (input: NewRun, options: EnqueueOptions) => Promise<EnqueueResult | undefined> {
  const enqueue = statementGroups<Row, EnqueueResult | undefined>(async (rows) => {
    const { rows: answers } = await query<Partial<RunRow> & { n: number; assistant_current: boolean }>(pool, STATEMENT, [
      JSON.stringify(rows.map((row, n) => ({ n, ...row }))),
    ]);
    // Every input row is answered, under its position in the input.
    const byPosition: Array<EnqueueResult | undefined> = [];
    for (const answer of answers) byPosition[answer.n] = answerOf(answer);
    return byPosition;
  });
  return (input, options) => enqueue(rowOf(input, options, new Date()));
}

function rowOf(input: NewRun, options: EnqueueOptions, now: Date): Row {
  const [ttl_strategy, ttl_minutes, expires_at] = newThreadTtl(options.createThread?.ttl, now);
  return {
    run_id: input.run_id,
    thread_id: input.thread_id,
    assistant_id: input.assistant_id,
    created_at: now.toISOString(),
    metadata: input.metadata,
    kwargs: input.kwargs,
    multitask_strategy: input.multitask_strategy,
    available_at: input.available_at.toISOString(),
    thread_metadata: { ...options.threadMetadata, ...options.createThread?.metadata },
    ttl_strategy,
    ttl_minutes,
    expires_at,
    assistant_version: options.assistantVersion?.version ?? null,
    assistant_updated_at: options.assistantVersion?.updated_at ?? null,
  };
}

function answerOf(answer: Partial<RunRow> & { assistant_current: boolean }): EnqueueResult | undefined {
  if (!answer.assistant_current) return { kind: "assistant_changed" };
  if (!answer.run_id) return undefined;
  return { kind: "created", run: rowToRun(answer as RunRow), cancelled: [], stopped: [] };
}
