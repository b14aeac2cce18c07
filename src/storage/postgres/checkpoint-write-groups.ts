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
import type pg from "pg";

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
}

export interface Tables {
  checkpoints: string;
  blobs: string;
  writes: string;
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
  const text = groupStatement(tables);
  const queue: Queued[] = [];
  let inFlight = 0;
  /** Threads with a job in a statement out. */
  const busy = new Set<string>();

  async function send(group: Queued[]): Promise<void> {
    try {
      await pool.query(text, parameters(group.map((q) => q.job)));
      for (const q of group) q.done();
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

function groupStatement(t: Tables): string {
  const writes = (first: number, conflict: string) =>
    `INSERT INTO ${t.writes} (${COLUMNS.writes})
     SELECT * FROM unnest($${first}::text[], $${first + 1}::text[], $${first + 2}::text[], $${first + 3}::text[], $${first + 4}::int[], $${first + 5}::text[], $${first + 6}::text[], $${first + 7}::bytea[])
     ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${conflict}`;
  return `WITH blobs AS (
       INSERT INTO ${t.blobs} (${COLUMNS.blobs})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[])
       ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
     ), kept AS (
       ${writes(7, "DO NOTHING")}
     ), replaced AS (
       ${writes(15, "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob")}
     )
     INSERT INTO ${t.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
     SELECT thread_id, checkpoint_ns, checkpoint_id, parent_id, checkpoint::jsonb, metadata::jsonb
     FROM unnest($23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::text[])
       AS c(thread_id, checkpoint_ns, checkpoint_id, parent_id, checkpoint, metadata)
     ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
}

/** Column arrays, in the statement's parameter order. */
function parameters(jobs: CheckpointJob[]): unknown[][] {
  const blobs = columns(6);
  const kept = columns(8);
  const replaced = columns(8);
  const checkpoints = columns(6);
  for (const job of jobs) {
    for (const row of job.blobs ?? []) push(blobs, row);
    if (job.writes) for (const row of job.writes.rows) push(job.writes.replace ? replaced : kept, row);
    if (job.checkpoint) push(checkpoints, job.checkpoint);
  }
  return [...blobs, ...kept, ...replaced, ...checkpoints];
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
