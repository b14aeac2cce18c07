// Request bodies and queries of the runs routes (spec §1.3, §1.4, §3.1). Every field the SDKs send is
// accepted and typed; anything else is ignored (src/unknown-keys.ts).
import { z } from "zod";
import { STREAM_MODES } from "../../domain/records.js";
import { afterSeconds, checkpointSelector, jsonObject, jsonValue, limit, offset, optional, positiveInt32 } from "./common.js";
import { queryBool } from "../validation.js";

const streamMode = z.enum(STREAM_MODES);
const nodeList = z.union([z.literal("*"), z.array(z.string().min(1))]);

const send = z.object({ node: z.string().min(1), input: jsonValue }).strict();

const command = z
  .object({
    resume: jsonValue.optional(),
    update: optional(z.union([jsonObject, z.array(z.tuple([z.string(), jsonValue]))])),
    goto: optional(z.union([z.string().min(1), send, z.array(z.union([z.string().min(1), send]))])),
  })
  .strict();

const runConfig = z
  .object({
    tags: optional(z.array(z.string())),
    recursion_limit: optional(positiveInt32),
    configurable: optional(jsonObject),
  })
  .catchall(jsonValue);

/** The fields every run-create body accepts; cron bodies take their run fields from here too. */
export const runCreateFields = {
  assistant_id: z.string().min(1, "is required"),
  input: jsonValue.optional(),
  command: optional(command),
  config: optional(runConfig),
  context: optional(jsonObject),
  metadata: optional(jsonObject),
  stream_mode: optional(z.union([streamMode, z.array(streamMode)])),
  stream_subgraphs: optional(z.boolean()),
  stream_resumable: optional(z.boolean()),
  interrupt_before: optional(nodeList),
  interrupt_after: optional(nodeList),
  webhook: optional(z.string().min(1).max(65_536)),
  feedback_keys: optional(z.array(z.string())),
  on_disconnect: optional(z.enum(["cancel", "continue"])),
  after_seconds: optional(afterSeconds),
  durability: optional(z.enum(["sync", "async", "exit"])),
  checkpoint_during: optional(z.boolean()),
  langsmith_tracer: optional(z.object({ project_name: optional(z.string()), example_id: optional(z.string()) }).strict()),
  if_not_exists: optional(z.enum(["reject", "create"])),
  multitask_strategy: optional(z.enum(["reject", "interrupt", "rollback", "enqueue"])),
  /** SDK 1.15 `strictResume`: refuse a resume that answers no waiting interrupt (runtime/strict-resume.ts). */
  strict_resume: optional(z.boolean()),
};

export const RunCreateStateful = z
  .object({
    ...runCreateFields,
    checkpoint: optional(checkpointSelector),
    checkpoint_id: optional(z.string()),
  })
  .strict();

export const RunCreateStateless = z
  .object({
    ...runCreateFields,
    on_completion: optional(z.enum(["delete", "keep"], { error: "must be 'delete' or 'keep'" })),
  })
  .strict();

/**
 * The JS SDK's createBatch sends each payload with the SDK's own camelCase option names (streamMode,
 * onCompletion, ...) next to `assistant_id`, so batch items are renamed to the wire names first.
 * `signal` (an AbortSignal, `{}` once serialised) and `assistantId` are the SDK's, not run fields.
 */
const batchItem = z.preprocess((item) => {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === "signal" || key === "assistantId") continue;
    // A key that names no run field keeps its own name, so that it is the one reported and dropped.
    const wire = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    out[Object.hasOwn(RunCreateStateless.shape, wire) ? wire : key] = value;
  }
  if (out.assistant_id === undefined && "assistantId" in item) out.assistant_id = (item as { assistantId: unknown }).assistantId;
  return out;
}, RunCreateStateless);

export const RunBatch = z.array(batchItem).min(1, "must hold at least one run");

export type RunCreateStatefulBody = z.output<typeof RunCreateStateful>;
export type RunCreateStatelessBody = z.output<typeof RunCreateStateless>;
export type CommandBody = z.output<typeof command>;

export const RunListQuery = z
  .object({
    limit: optional(z.coerce.number().pipe(limit)),
    offset: optional(z.coerce.number().pipe(offset)),
    status: optional(z.enum(["pending", "running", "error", "success", "timeout", "interrupted"])),
    select: optional(z.array(z.string())),
  })
  .strict();

export const JoinQuery = z.object({ cancel_on_disconnect: optional(queryBool) }).strict();

export const JoinStreamQuery = z
  .object({
    cancel_on_disconnect: optional(queryBool),
    stream_mode: optional(z.array(streamMode)),
  })
  .strict();

export const CancelQuery = z
  .object({
    wait: optional(queryBool),
    action: optional(z.enum(["interrupt", "rollback"])),
  })
  .strict();

export const BulkCancelBody = z.union([
  z.object({ thread_id: z.uuid(), run_ids: z.array(z.uuid()).min(1) }).strict(),
  z.object({ status: z.enum(["pending", "running", "all"]) }).strict(),
]);

export const RunRecord = z.object({
  run_id: z.uuid(),
  thread_id: z.uuid(),
  assistant_id: z.uuid(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(["pending", "running", "error", "success", "timeout", "interrupted"]),
  metadata: jsonObject,
  kwargs: jsonObject,
  multitask_strategy: z.enum(["reject", "interrupt", "rollback", "enqueue"]).nullable(),
});
