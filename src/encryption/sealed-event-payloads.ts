// Event payloads sealed before they reach Redis: each event's data becomes one sealed JSON string,
// so the stream entries and the batches published to readers carry no plaintext. Events written
// before the key was set read as they are. Synchronous, as appends are queued in call order.
import type { EventPayloadCodec } from "../events/event-payload-codec.js";
import { openJson, sealJson } from "./json-keys.js";
import type { KeyRing } from "./key-ring.js";
import type { Json } from "../storage/records.js";

export function sealedEventPayloads(ring: KeyRing): EventPayloadCodec {
  return {
    encode: (data) => JSON.stringify(sealJson(ring, data as Json)),
    decode: (stored) => openJson(ring, stored),
  };
}
