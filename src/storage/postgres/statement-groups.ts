// The queue behind the statements that concurrent runs share (finish-groups.ts, enqueue-groups.ts):
// a job starts at once when fewer than MAX_IN_FLIGHT of its statements are out, and otherwise waits
// and leaves with every job queued behind it, up to MAX_JOBS, in one statement. A lone job so goes
// as it would alone, while a backlog shares statements, commits and WAL flushes. Each job resolves
// with its own answer only once its statement committed; a statement that fails is sent again one
// job at a time, so a job fails only for itself.
//
// Checkpoint writes keep a queue of their own (checkpoint-write-groups.ts): a statement there may
// hold one job per thread, and a thread's jobs must land in order.

/** Statements out at once: a second one keeps a statement waiting on a lock from holding every job. */
const MAX_IN_FLIGHT = 2;
/** Jobs per statement: bounds one statement's size when a backlog has built up. */
const MAX_JOBS = 64;

/** Sends one statement for `jobs` and answers each, in their order. */
export type GroupStatement<Job, Answer> = (jobs: Job[]) => Promise<Answer[]>;

interface Queued<Job, Answer> {
  job: Job;
  resolve: (answer: Answer) => void;
  reject: (err: unknown) => void;
}

export function statementGroups<Job, Answer>(statement: GroupStatement<Job, Answer>): (job: Job) => Promise<Answer> {
  const queue: Array<Queued<Job, Answer>> = [];
  let inFlight = 0;

  async function send(group: Array<Queued<Job, Answer>>): Promise<void> {
    try {
      const answers = await statement(group.map((q) => q.job));
      group.forEach((q, i) => q.resolve(answers[i]!));
    } catch (err) {
      if (group.length === 1) group[0]!.reject(err);
      else for (const q of group) await send([q]);
    }
  }

  function pump(): void {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const group = queue.splice(0, MAX_JOBS);
      inFlight += 1;
      void send(group).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  return (job) =>
    new Promise<Answer>((resolve, reject) => {
      queue.push({ job, resolve, reject });
      pump();
    });
}
