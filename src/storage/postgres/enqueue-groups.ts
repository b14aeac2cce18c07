// Unclaimed runs on new threads share statements. Under load most stateless runs are created while
// the worker's slots are full, so nobody claims them at creation; such an enqueue starts at once
// when fewer than MAX_IN_FLIGHT statements are out, and otherwise waits and leaves with every one
// queued behind it, in one statement whose runs travel as one JSON array (one fixed text, so it is
// prepared once per connection). A lone run's enqueue therefore goes as before, one statement,
// while 32 clients' enqueues go a few to a statement: fewer statements, commits and WAL flushes
// (docs/decisions.md).
//
// Each run of a group is judged as enqueueOnNewThread (runs.ts) judges a lone one: its assistant
// checked, its thread inserted busy unless it exists, its run inserted pending on it; the runs are
// inserted in the callers' order, which gives them their seq, and so their place in the queue, in
// that order. Each enqueue resolves only once its group committed, so it is as durable as before.
// A group that fails is retried one enqueue at a time, so an enqueue fails only for itself.
import type pg from "pg";
import type { JsonObject } from "../records.js";
import type { EnqueueOptions, EnqueueResult, NewRun } from "../run-ports.js";
import { assistantCurrent, COLUMNS, rowToRun, type RunRow } from "./run-rows.js";
import { run as query } from "./sql-helpers.js";

/** Statements out at once: a second one keeps a slow statement from holding every enqueue. */
const MAX_IN_FLIGHT = 2;
/** Enqueues per statement: bounds one statement's size when a backlog has built up. */
const MAX_ENQUEUES = 64;

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
  assistant_version: number | null;
  assistant_updated_at: string | null;
}

interface Queued {
  row: Row;
  done: (err: unknown, answer?: EnqueueResult) => void;
}

// One statement may not insert a thread twice, so of the runs of a group naming one thread only the
// first with a current assistant may insert it; the others find it taken, as they would have after
// it. Every input row is answered, so a refused assistant and a taken thread can be told apart.
const STATEMENT = `WITH input AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(n integer, run_id text, thread_id text, assistant_id text, created_at timestamptz, metadata jsonb,
                                                     kwargs jsonb, multitask_strategy text, available_at timestamptz, thread_metadata jsonb,
                                                     assistant_version integer, assistant_updated_at timestamptz)
   ), checked AS (
     SELECT i.*, ${assistantCurrent("i.assistant_id", "i.assistant_version", "i.assistant_updated_at")} AS assistant_current FROM input i
   ), inserting AS (
     SELECT DISTINCT ON (thread_id) * FROM checked WHERE assistant_current ORDER BY thread_id, n
   ), thread AS (
     INSERT INTO threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, config, "values", interrupts, error)
     SELECT thread_id, created_at, created_at, created_at, thread_metadata, 'busy', '{}', NULL, '{}', NULL FROM inserting
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
  const queue: Queued[] = [];
  let inFlight = 0;

  async function send(group: Queued[]): Promise<void> {
    try {
      const { rows } = await query<Partial<RunRow> & { n: number; assistant_current: boolean }>(pool, STATEMENT, [
        JSON.stringify(group.map((q, n) => ({ n, ...q.row }))),
      ]);
      for (const answer of rows) group[answer.n]!.done(undefined, answerOf(answer));
    } catch (err) {
      if (group.length === 1) group[0]!.done(err);
      else for (const q of group) await send([q]);
    }
  }

  function pump(): void {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const group = queue.splice(0, MAX_ENQUEUES);
      inFlight += 1;
      void send(group).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  return (input, options) =>
    new Promise<EnqueueResult | undefined>((resolve, reject) => {
      queue.push({ row: rowOf(input, options, new Date()), done: (err, answer) => (err === undefined ? resolve(answer) : reject(err)) });
      pump();
    });
}

function rowOf(input: NewRun, options: EnqueueOptions, now: Date): Row {
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
    assistant_version: options.assistantVersion?.version ?? null,
    assistant_updated_at: options.assistantVersion?.updated_at ?? null,
  };
}

function answerOf(answer: Partial<RunRow> & { assistant_current: boolean }): EnqueueResult | undefined {
  if (!answer.assistant_current) return { kind: "assistant_changed" };
  if (!answer.run_id) return undefined;
  return { kind: "created", run: rowToRun(answer as RunRow), cancelled: [], stopped: [] };
}
