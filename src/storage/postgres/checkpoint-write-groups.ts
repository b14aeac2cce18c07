// Checkpoint writes of concurrent runs share statements. Every put and putWrites becomes a job of
// rows for the saver's three tables; a job starts at once when fewer than MAX_IN_FLIGHT statements
// are out, and otherwise waits and leaves with every job queued behind it, in one statement of
// array parameters (one fixed text, so it is prepared once per connection). A lone run's writes
// therefore go as before, one statement each, while 32 runs' writes go a few to a statement:
// fewer statements, commits and WAL flushes, with each write still durable when its promise
// resolves (docs/benchmarks.md has the figures).
//
// One statement may not change a row twice (ON CONFLICT DO UPDATE refuses it), and a job's rows
// are keyed by its thread, so a group holds at most one job per thread; the thread's next job
// waits for the group to land, so a thread's jobs land in the order they came (a kept write stays
// the first one). A group that fails is retried job by job, so a job fails only for itself.
//
// A job written for a run under a lease lands only if the run's row still holds that lease: the
// statement locks the row (FOR SHARE, so a sweeper's requeue waits for the write, and a requeue
// that came first leaves the row unmatched) and leaves out every row of a job whose lease is gone,
// which then fails with LeaseLostError on its own.
import type pg from "pg";
import { LeaseLostError } from "../../errors.js";
import type { RunLease } from "../checkpoint-ports.js";

export type BlobRow = [threadId: string, namespace: string, channel: string, version: string, type: string, blob: Uint8Array | undefined];
export type WriteRow = [
  threadId: string,
  namespace: string,
  checkpointId: string,
  taskId: string,
  idx: number,
  channel: string,
  type: string,
  blob: Uint8Array,
];
export type CheckpointRow = [threadId: string, namespace: string, checkpointId: string, parentId: string | undefined, checkpoint: unknown, metadata: unknown];

export interface CheckpointJob {
  threadId: string;
  blobs?: BlobRow[];
  checkpoint?: CheckpointRow;
  /** Writes that keep an existing row (ordinary channels) or replace it (the special ones). */
  writes?: { rows: WriteRow[]; replace: boolean };
  /** The run the job writes for, and the lease it must still hold for the job to land. */
  lease?: RunLease & { runId: string };
}

export interface Tables {
  checkpoints: string;
  blobs: string;
  writes: string;
  /** Gantry's runs table, where a job's lease is checked. */
  runs: string;
}

/** Statements out at once: a second one keeps a lock wait on one thread from holding every run's writes. */
const MAX_IN_FLIGHT = 2;
/** Jobs per statement: bounds one statement's size when a backlog has built up. */
const MAX_JOBS = 64;

interface Queued {
  job: CheckpointJob;
  done: (err?: unknown) => void;
}

export function checkpointWriteGroups(pool: pg.Pool, tables: Tables): (job: CheckpointJob) => Promise<void> {
  const text = { plain: groupStatement(tables, false), fenced: groupStatement(tables, true) };
  const queue: Queued[] = [];
  let inFlight = 0;
  /** Threads with a job in a statement out. */
  const busy = new Set<string>();

  async function send(group: Queued[]): Promise<void> {
    try {
      const jobs = group.map((q) => q.job);
      const { rows } = await pool.query<{ job: number }>(jobs.some((job) => job.lease) ? text.fenced : text.plain, parameters(jobs));
      const refused = new Set(rows.map((row) => row.job));
      group.forEach((q, i) => q.done(refused.has(i) ? new LeaseLostError(q.job.lease!.runId) : undefined));
    } catch (err) {
      if (group.length === 1) group[0]!.done(err);
      else for (const q of group) await send([q]);
    }
  }

  function pump(): void {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const group = takeGroup(queue, busy);
      if (group.length === 0) return;
      inFlight += 1;
      for (const q of group) busy.add(q.job.threadId);
      void send(group).finally(() => {
        inFlight -= 1;
        for (const q of group) busy.delete(q.job.threadId);
        pump();
      });
    }
  }

  return (job) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ job, done: (err) => (err === undefined ? resolve() : reject(err)) });
      pump();
    });
}

/** The oldest jobs, one per thread not `busy`, in queue order; the rest stay queued in their order. */
function takeGroup(queue: Queued[], busy: ReadonlySet<string>): Queued[] {
  const threads = new Set<string>(busy);
  const group: Queued[] = [];
  let kept = 0;
  for (const q of queue) {
    if (group.length < MAX_JOBS && !threads.has(q.job.threadId)) {
      threads.add(q.job.threadId);
      group.push(q);
    } else {
      queue[kept++] = q;
    }
  }
  queue.length = kept;
  return group;
}

const COLUMNS = {
  blobs: "thread_id, checkpoint_ns, channel, version, type, blob",
  writes: "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob",
};

// Each row carries its job's position in the group ($29-$32), so rows of a job whose lease is
// gone are left out; the statement answers those positions. A group with no lease to check (writes
// outside runs) has a text of its own that does not read the runs table.
function groupStatement(t: Tables, fenced: boolean): string {
  const kept = "WHERE job <> ALL (SELECT job FROM refused)";
  const writes = (first: number, job: number, conflict: string) =>
    `INSERT INTO ${t.writes} (${COLUMNS.writes})
     SELECT ${COLUMNS.writes} FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::text[], $${first + 4}::int[], $${first + 5}::text[], $${first + 6}::text[], $${first + 7}::bytea[], $${job}::int[])
       AS w(${COLUMNS.writes}, job) ${kept}
     ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${conflict}`;
  const refused = fenced
    ? `fences AS (
       SELECT * FROM unnest($33::int[], $34::text[], $35::text[], $36::int[]) AS f(job, run_id, owner, attempt)
     ), held AS (
       SELECT f.job FROM ${t.runs} r JOIN fences f
         ON r.run_id = f.run_id AND r.status = 'running' AND r.lease_owner = f.owner AND r.attempt = f.attempt
       FOR SHARE OF r
     ), refused AS (
       SELECT job FROM fences WHERE job NOT IN (SELECT job FROM held)
     )`
    : "refused AS (SELECT NULL::int AS job WHERE false)";
  return `WITH ${refused}, blobs AS (
       INSERT INTO ${t.blobs} (${COLUMNS.blobs})
       SELECT ${COLUMNS.blobs} FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $29::int[])
         AS b(${COLUMNS.blobs}, job) ${kept}
       ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
     ), kept AS (
       ${writes(7, 30, "DO NOTHING")}
     ), replaced AS (
       ${writes(15, 31, "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob")}
     ), checkpoints AS (
       INSERT INTO ${t.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       SELECT thread_id, checkpoint_ns, checkpoint_id, parent_id, checkpoint::jsonb, metadata::jsonb
       FROM unnest($23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::text[], $32::int[])
         AS c(thread_id, checkpoint_ns, checkpoint_id, parent_id, checkpoint, metadata, job) ${kept}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
     )
     SELECT job FROM refused`;
}

/** Column arrays, in the statement's parameter order. */
function parameters(jobs: CheckpointJob[]): unknown[][] {
  // Each table's columns, then the job position of each of its rows.
  const blobs = columns(7);
  const kept = columns(9);
  const replaced = columns(9);
  const checkpoints = columns(7);
  const fences = columns(4);
  jobs.forEach((job, position) => {
    for (const row of job.blobs ?? []) push(blobs, [...row, position]);
    if (job.writes) for (const row of job.writes.rows) push(job.writes.replace ? replaced : kept, [...row, position]);
    if (job.checkpoint) push(checkpoints, [...job.checkpoint, position]);
    if (job.lease) push(fences, [position, job.lease.runId, job.lease.workerId, job.lease.attempt]);
  });
  const rows = (table: unknown[][]) => table.slice(0, -1);
  const positions = (table: unknown[][]) => table.at(-1)!;
  const fenced = fences[0]!.length > 0 ? fences : [];
  return [
    ...rows(blobs),
    ...rows(kept),
    ...rows(replaced),
    ...rows(checkpoints),
    positions(blobs),
    positions(kept),
    positions(replaced),
    positions(checkpoints),
    ...fenced,
  ];
}

const columns = (n: number): unknown[][] => Array.from({ length: n }, () => []);

function push(into: unknown[][], row: readonly unknown[]): void {
  row.forEach((value, i) => into[i]!.push(asParameter(value)));
}

/**
 * What pg would have sent for the value as a parameter of its own: bytes as bytea (inside an
 * array pg only knows Buffer), objects as their JSON text, absent as NULL.
 */
function asParameter(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return value ?? null;
}
