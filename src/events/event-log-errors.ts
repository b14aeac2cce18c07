// What an event log refuses and what its readers are told when events are gone. Both are thrown, not
// kinds: a lost log surfaces mid-stream (the SSE writer turns it into the stream's final `error`
// event), and a stale writer is the worker's business, never a client's.

/**
 * A reader would pass over events the log no longer holds: the log vanished (Redis restarted
 * without persistence, the key was evicted or expired) or was re-created since, or a resume asks
 * for events after an id the log no longer reaches back to, or a reader fell so far behind that
 * the log dropped what it had not read. Thrown by a read's iterator, never as
 * a clean end: a stream that stops here must say that it is short.
 */
export class EventsLostError extends Error {
  constructor(key: string, why: string) {
    super(`${describe(key)} ${why}; the events in between cannot be sent. ${advice(key)}`);
    this.name = "EventsLostError";
  }
}

/** A write from a writer older than the one that opened the log (a worker that lost the run's lease): nothing of it was written. */
export class StaleWriterError extends Error {
  constructor(key: string, writer: number, current: number) {
    super(`Event log ${key} is written by attempt ${current} now; attempt ${writer}'s write was refused`);
    this.name = "StaleWriterError";
  }
}

/** Why a log that a reader followed, or resumed, reads short. */
export const LOST = {
  gone: "was lost while it was being read (its event log vanished: Redis restarted without persistence, or the key was evicted)",
  replaced: "was lost while it was being read (its event log vanished and was started again)",
  start: "lost its earliest events (its event log vanished while the run was writing it)",
  missing: (status: string) =>
    `has no event log although the run is ${status} (its event log vanished: Redis restarted without persistence, or the key was evicted)`,
  before: (after: string) => `no longer holds the events after ${after.slice(0, 64)}`,
  restarted: (after: string) => `was started again after its event log vanished, and cannot tell where event ${after.slice(0, 64)} was in it`,
  behind: "dropped events this reader had not read yet (the reader fell further behind the run than the log keeps)",
};

function describe(key: string): string {
  if (key.startsWith("thread:")) return `The stream of thread ${key.slice(7)}`;
  if (key.startsWith("protocol:")) return `The event stream of thread ${key.slice(9)}`;
  return `The stream of run ${key}`;
}

function advice(key: string): string {
  if (key.startsWith("thread:") || key.startsWith("protocol:"))
    return "Read the thread's state for where it stands, and reconnect without Last-Event-ID to follow it.";
  return "The run's outcome is kept: join the run (GET .../join) or read the thread's state for its final values.";
}
