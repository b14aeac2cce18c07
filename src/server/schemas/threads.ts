// Request bodies and queries of the threads routes (spec §1.2), and the record shape for /openapi.json.
import { z } from "zod";
import { checkpointSelector, ifExists, jsonFilter, jsonObject, limit, offset, optional, sortOrder, ttlMinutes, uuid } from "./common.js";
import { queryBool } from "../validation.js";

export const THREAD_FIELDS = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "config",
  "context",
  "status",
  "values",
  "interrupts",
  "error",
] as const;

const threadStatus = z.enum(["idle", "busy", "interrupted", "error"]);

const ttl = z
  .object({
    strategy: optional(z.enum(["delete", "keep_latest"])),
    ttl: ttlMinutes,
  })
  .strict();

const superstep = z
  .object({
    updates: z.array(
      z
        .object({
          values: z.unknown().optional(),
          command: optional(jsonObject),
          as_node: z.string(),
        })
        .strict(),
    ),
  })
  .strict();

export const ThreadCreateBody = z
  .object({
    thread_id: optional(uuid),
    metadata: optional(jsonObject),
    if_exists: optional(ifExists),
    ttl: optional(z.union([ttl, ttlMinutes])),
    supersteps: optional(z.array(superstep)),
  })
  .strict();

export const ThreadPatchBody = z
  .object({
    metadata: optional(jsonObject),
    ttl: optional(z.union([ttl, ttlMinutes])),
  })
  .strict();

const EXTRACT_PATH = /^(values|metadata|config|interrupts)(\.[A-Za-z0-9_-]+|\[-?\d+\])*$/;

const filterFields = {
  metadata: optional(jsonFilter),
  values: optional(jsonFilter),
  status: optional(threadStatus),
};

export const ThreadSearchBody = z
  .object({
    ...filterFields,
    ids: optional(z.array(uuid)),
    limit: optional(limit),
    offset: optional(offset),
    sort_by: optional(z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"])),
    sort_order: optional(sortOrder),
    select: optional(z.array(z.enum(THREAD_FIELDS)).min(1)),
    extract: optional(
      z
        .record(z.string().min(1), z.string().regex(EXTRACT_PATH, "must be a path rooted at values., metadata., config. or interrupts."))
        .refine((m) => Object.keys(m).length <= 10, "may name at most 10 paths"),
    ),
  })
  .strict();

export const ThreadCountBody = z.object(filterFields).strict();

export const ThreadPruneBody = z
  .object({
    thread_ids: z.array(uuid),
    strategy: optional(z.enum(["delete", "keep_latest"])),
  })
  .strict();

export const ThreadGetQuery = z.object({ include: optional(z.array(z.enum(["ttl"]))) }).strict();

export const ThreadRecord = z.object({
  thread_id: z.uuid(),
  created_at: z.string(),
  updated_at: z.string(),
  state_updated_at: z.string(),
  metadata: jsonObject,
  status: threadStatus,
  config: jsonObject,
  values: z.unknown(),
  interrupts: jsonObject,
  error: z.unknown(),
});

export const StateQuery = z.object({ subgraphs: optional(queryBool) }).strict();

export const StateCheckpointBody = z.object({ checkpoint: checkpointSelector, subgraphs: optional(z.boolean()) }).strict();

export const StateUpdateBody = z
  .object({
    values: z.unknown().optional(),
    checkpoint: optional(checkpointSelector),
    checkpoint_id: optional(z.string()),
    as_node: optional(z.string().min(1)),
  })
  .strict();

export const StatePatchBody = z.object({ metadata: jsonObject }).strict();

/** `before` as a checkpoint id, a Checkpoint, or a config holding one (the SDKs send all three). */
const before = z.union([
  z.string().min(1),
  checkpointSelector.transform((c) => c.checkpoint_id ?? undefined),
  z
    .object({ configurable: z.object({ checkpoint_id: optional(z.string()) }).catchall(z.unknown()) })
    .catchall(z.unknown())
    .transform((c) => c.configurable.checkpoint_id),
]);

export const HistoryBody = z
  .object({
    limit: optional(limit),
    before: optional(before),
    metadata: optional(jsonFilter),
    checkpoint: optional(checkpointSelector),
  })
  .strict();

export const HistoryQuery = z
  .object({
    limit: optional(z.coerce.number().pipe(limit)),
    before: optional(z.string().min(1)),
  })
  .strict();
