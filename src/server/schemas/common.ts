// Pieces shared by the wire schemas. Absent and null mean the same ("not provided") for optional
// fields, because the Python SDK sends explicit nulls where the JS SDK omits keys.
import { z } from "zod";
import { filterTooLarge, MAX_AFTER_SECONDS, MAX_FILTER_ENTRIES, MAX_INT32, MAX_LIMIT, MAX_OFFSET, MAX_TTL_MINUTES } from "../../domain/limits.js";
import type { Json } from "../../domain/records.js";

/** Any JSON value: bodies arrive through JSON.parse, so what is there is JSON. */
export const jsonValue = z.custom<Json>((value) => value !== undefined);
export const jsonObject = z.record(z.string(), jsonValue);

/** A metadata, values or store filter: a JSON object of at most MAX_FILTER_ENTRIES keys and elements. */
export const jsonFilter = jsonObject.refine((filter) => !filterTooLarge(filter), `may hold at most ${MAX_FILTER_ENTRIES} keys and list elements in all`);

/** Optional on the wire: absent or null become undefined. */
export function optional<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((v) => (v === null ? undefined : v));
}

export const uuid = z.uuid({ error: "must be a UUID" }).transform((s) => s.toLowerCase());

export const limit = z.int().min(1, `must be between 1 and ${MAX_LIMIT}`).max(MAX_LIMIT, `must be between 1 and ${MAX_LIMIT}`);
export const offset = z.int().min(0, `must be between 0 and ${MAX_OFFSET}`).max(MAX_OFFSET, `must be between 0 and ${MAX_OFFSET}`);

/** A ttl in minutes, as threads and store items take it. */
export const ttlMinutes = z
  .number()
  .positive(`must be a positive number of minutes, at most ${MAX_TTL_MINUTES}`)
  .max(MAX_TTL_MINUTES, `must be a positive number of minutes, at most ${MAX_TTL_MINUTES}`);

export const afterSeconds = z
  .number()
  .min(0, `must be between 0 and ${MAX_AFTER_SECONDS} seconds`)
  .max(MAX_AFTER_SECONDS, `must be between 0 and ${MAX_AFTER_SECONDS} seconds`);

/** A positive counter kept in a 32-bit column (versions, recursion limits). */
export const positiveInt32 = z.int().min(1, `must be between 1 and ${MAX_INT32}`).max(MAX_INT32, `must be between 1 and ${MAX_INT32}`);

export const sortOrder = z.enum(["asc", "desc"]);

export const ifExists = z.enum(["raise", "do_nothing"]);

/** A checkpoint as the SDKs name one (the thread id may be left out: the path gives it). */
export const checkpointSelector = z
  .object({
    thread_id: optional(z.string()),
    checkpoint_ns: optional(z.string()),
    checkpoint_id: optional(z.string()),
    checkpoint_map: optional(jsonObject),
  })
  .strict();
