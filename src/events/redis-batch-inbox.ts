// What a reader of a Redis event log heard on its channel: the batches writers published, held in
// order until the reader reaches them (redis-event-log.ts). A batch that continues exactly from the
// reader's cursor is taken as it is; a gap before it sends the reader back to the stream.

import type { EventPayloadCodec } from "./event-payload-codec.js";

// Events a reader holds from its channel before it has read them; past it, it reads the stream.
const INBOX_EVENTS = 4096;

export type BatchEntry = [id: string, event: string, data: unknown];

/** A batch as a log's channel carries it: the id it follows, its events, whether the log ended after them. */
export interface Batch {
  prev: string;
  entries: BatchEntry[];
  end: boolean;
}

/**
 * The batches a reader's channel carried, oldest first. Bounded: a reader that does not keep up
 * drops them and reads the stream instead.
 */
export function batchInbox() {
  let batches: Batch[] = [];
  let held = 0;
  return {
    /** False for a batch dropped. */
    add(batch: Batch): boolean {
      if (held + batch.entries.length > INBOX_EVENTS) {
        batches = [];
        held = 0;
        return false;
      }
      batches.push(batch);
      held += batch.entries.length;
      return true;
    },
    /** Whether batches are held that do not continue from where the reader is (a gap before them). */
    waiting: () => batches.length > 0,
    /**
     * The batch that follows `cursor` exactly, or "end" when the log ended right there; drops
     * what was already read; nothing if there is a gap.
     */
    next(cursor: string): BatchEntry[] | "end" | undefined {
      while (batches.length > 0) {
        const first = batches[0]!;
        if (first.prev !== cursor && compareIds(first.entries.at(-1)?.[0] ?? first.prev, cursor) > 0) return undefined;
        batches.shift();
        held -= first.entries.length;
        if (first.prev === cursor) return first.end ? "end" : first.entries;
      }
      return undefined;
    },
  };
}

/** A channel message that is a batch (one that is not: 'open', 'end', a bare id from an older replica, makes the reader read the stream). */
export function parseBatch(message: string, payloads: EventPayloadCodec): Batch {
  const { p, b, end } = JSON.parse(message) as { p: string; b: BatchEntry[]; end?: 1 };
  return { prev: p, entries: b.map(([id, event, data]) => [id, event, payloads.decode(data)]), end: end === 1 };
}

function compareIds(a: string, b: string): number {
  const [aMs, aSeq] = a.split("-").map(Number) as [number, number];
  const [bMs, bSeq] = b.split("-").map(Number) as [number, number];
  return aMs - bMs || aSeq - bSeq;
}
