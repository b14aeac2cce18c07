// How an event's data is written into a durable event log and read back: JSON text by default, or
// sealed by encryption at rest (encryption/sealed-event-payloads.ts). Only the payload changes; ids,
// names and the log's bookkeeping are the log's own.

export interface EventPayloadCodec {
  /** The JSON text stored for `data`. */
  encode(data: unknown): string;
  /** The data of what `encode` stored, once parsed from JSON; anything not encoded by it passes as it is. */
  decode(stored: unknown): unknown;
}

export const plainPayloads: EventPayloadCodec = {
  encode: (data) => JSON.stringify(data) ?? "null",
  decode: (stored) => stored,
};
