// Pieces shared by the wire schemas. Absent and null mean the same ("not provided") for optional
// fields, because the Python SDK sends explicit nulls where the JS SDK omits keys.
import { z } from "zod";
import type { Json } from "../../domain/records.js";

/** Any JSON value: bodies arrive through JSON.parse, so what is there is JSON. */
export const jsonValue = z.custom<Json>((value) => value !== undefined);
export const jsonObject = z.record(z.string(), jsonValue);

/** Optional on the wire: absent or null become undefined. */
export function optional<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((v) => (v === null ? undefined : v));
}

export const uuid = z.uuid({ error: "must be a UUID" }).transform((s) => s.toLowerCase());

export const limit = z.int().min(1, "must be between 1 and 1000").max(1000, "must be between 1 and 1000");
export const offset = z.int().min(0, "must be 0 or more");
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
