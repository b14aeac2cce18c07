// Lets a writer go on appending without awaiting each append: the event log applies one key's
// writes in call order, so awaiting them one by one only adds a round trip per event. The window
// bounds how many are unsettled at once (memory, when the log is slower than the writer), and
// hands the first failure back to the writer at its next add() or at settled().
//
// Every `turnEvery` adds the writer also gives the event loop a turn: a graph's events arrive as
// settled promises, so a run can produce hundreds of them without leaving the microtask queue, and
// meanwhile Redis's replies, its channel messages and the readers' sockets in this process wait.
import { setImmediate as nextTurn } from "node:timers/promises";

export interface WriteWindow {
  /** Resolves at once unless the window is full (then once enough of the oldest writes have settled) or it is time for a turn. */
  add(write: Promise<unknown>): Promise<void>;
  /** Resolves when every write added so far has settled; rejects with the first failure. */
  settled(): Promise<void>;
}

export function writeWindow(limit: number, turnEvery = 64): WriteWindow {
  const unsettled = new Set<Promise<unknown>>();
  let added = 0;
  const oldest = () => unsettled.values().next().value;
  let failure: { err: unknown } | undefined;
  const check = () => {
    if (!failure) return;
    const { err } = failure;
    failure = undefined;
    throw err;
  };
  return {
    async add(write) {
      unsettled.add(write);
      write.then(
        () => unsettled.delete(write),
        (err: unknown) => {
          unsettled.delete(write);
          failure ??= { err };
        },
      );
      check();
      // The oldest first: with writes settling in order, that frees a slot as soon as one exists.
      while (unsettled.size >= limit) await oldest()?.catch(() => {});
      added += 1;
      if (added % turnEvery === 0) await nextTurn();
      check();
    },
    async settled() {
      await Promise.allSettled([...unsettled]);
      check();
    },
  };
}
