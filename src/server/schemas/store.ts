// Request bodies and queries of the /store routes (spec §1.6). Label rules (non-empty, no ".") are
// checked by the store service, which graphs' config.store goes through as well.
import { z } from "zod";
import { jsonFilter, jsonObject, limit, offset, optional, positiveInt32, ttlMinutes } from "./common.js";
import { queryBool } from "../validation.js";

const namespace = z.array(z.string());
const key = z.string().min(1, "must not be empty");

export const StorePutBody = z
  .object({
    namespace,
    key,
    value: jsonObject,
    index: optional(z.union([z.literal(false), z.array(z.string().min(1, "must not be empty"))])),
    ttl: optional(ttlMinutes),
  })
  .strict();

/** `namespace` is read from every repeated key and split on "." by the route (both SDKs' encodings). */
export const StoreGetQuery = z
  .object({
    namespace: z.string({ error: "is required (labels joined with '.')" }),
    key: z.string({ error: "is required" }).min(1, "must not be empty"),
    refresh_ttl: optional(queryBool),
  })
  .strict();

export const StoreDeleteBody = z.object({ namespace, key }).strict();

export const StoreSearchBody = z
  .object({
    namespace_prefix: optional(namespace),
    filter: optional(jsonFilter),
    limit: optional(limit),
    offset: optional(offset),
    query: optional(z.string()),
    refresh_ttl: optional(z.boolean()),
  })
  .strict();

export const NamespaceListBody = z
  .object({
    prefix: optional(namespace),
    suffix: optional(namespace),
    max_depth: optional(positiveInt32),
    limit: optional(limit),
    offset: optional(offset),
  })
  .strict();
