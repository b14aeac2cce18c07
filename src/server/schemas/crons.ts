// Request bodies of the crons routes (spec §1.5) and the record shape for /openapi.json. A cron's
// run fields are the run-create fields, validated by the same schemas.
import { z } from "zod";
import { jsonFilter, jsonObject, limit, offset, optional, sortOrder, uuid } from "./common.js";
import { runCreateFields } from "./runs.js";

export const CRON_FIELDS = [
  "cron_id",
  "assistant_id",
  "thread_id",
  "on_run_completed",
  "end_time",
  "schedule",
  "timezone",
  "created_at",
  "updated_at",
  "payload",
  "user_id",
  "next_run_date",
  "metadata",
  "enabled",
] as const;

/**
 * An instant; one without an offset (Python's naive datetime.isoformat()) is read as UTC, whatever
 * the server's own time zone.
 */
const instant = z.iso
  .datetime({ offset: true, local: true, error: "must be an ISO-8601 date and time, such as 2030-01-01T00:00:00Z" })
  .transform((s) => new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(s) ? s : `${s}Z`));

const runFields = {
  input: runCreateFields.input,
  config: runCreateFields.config,
  context: runCreateFields.context,
  webhook: runCreateFields.webhook,
  interrupt_before: runCreateFields.interrupt_before,
  interrupt_after: runCreateFields.interrupt_after,
  stream_mode: runCreateFields.stream_mode,
  stream_subgraphs: runCreateFields.stream_subgraphs,
  stream_resumable: runCreateFields.stream_resumable,
  durability: runCreateFields.durability,
  checkpoint_during: runCreateFields.checkpoint_during,
  multitask_strategy: runCreateFields.multitask_strategy,
  if_not_exists: runCreateFields.if_not_exists,
};

const onRunCompleted = z.enum(["delete", "keep"], { error: "must be 'delete' or 'keep'" });

const cronFields = {
  ...runFields,
  schedule: z.string().trim().min(1, "is required (a cron expression such as '*/5 * * * *')"),
  timezone: optional(z.string().min(1)),
  end_time: optional(instant),
  metadata: optional(jsonObject),
  enabled: optional(z.boolean()),
};

/** Both create routes; on_run_completed on a thread cron is refused by the domain, with the reason. */
export const CronCreateBody = z.object({ ...cronFields, assistant_id: runCreateFields.assistant_id, on_run_completed: optional(onRunCompleted) }).strict();

export const CronPatchBody = z
  .object({
    ...runFields,
    schedule: optional(cronFields.schedule),
    timezone: cronFields.timezone,
    // The one field where null means something: it clears the end.
    end_time: z.union([instant, z.null()]).optional(),
    metadata: cronFields.metadata,
    enabled: cronFields.enabled,
    on_run_completed: optional(onRunCompleted),
  })
  .strict();

const filterFields = {
  assistant_id: optional(z.string().min(1)),
  thread_id: optional(uuid),
  enabled: optional(z.boolean()),
  metadata: optional(jsonFilter),
};

export const CronSearchBody = z
  .object({
    ...filterFields,
    limit: optional(limit),
    offset: optional(offset),
    sort_by: optional(z.enum(["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"])),
    sort_order: optional(sortOrder),
    select: optional(z.array(z.enum([...CRON_FIELDS, "now"])).min(1)),
  })
  .strict();

export const CronCountBody = z.object(filterFields).strict();

export const CronRecord = z.object({
  cron_id: z.uuid(),
  assistant_id: z.uuid(),
  thread_id: z.uuid().nullable(),
  on_run_completed: z.enum(["delete", "keep"]).nullable(),
  end_time: z.string().nullable(),
  schedule: z.string(),
  timezone: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  payload: jsonObject,
  user_id: z.string().nullable(),
  next_run_date: z.string().nullable(),
  metadata: jsonObject,
  enabled: z.boolean(),
});
