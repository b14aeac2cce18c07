// What the run statements share: the run row as PostgreSQL returns it, its record, and the
// assistant check an enqueue makes (runs.ts, and the grouped enqueues of enqueue-groups.ts).
import type { JsonObject, MultitaskStrategy, Run, RunKwargs, RunStatus } from "../records.js";
import type { CancelAction } from "../run-ports.js";

export const COLUMN_NAMES = [
  "run_id",
  "thread_id",
  "assistant_id",
  "created_at",
  "updated_at",
  "status",
  "metadata",
  "kwargs",
  "multitask_strategy",
  "attempt",
  "cancel_action",
];
export const COLUMNS = COLUMN_NAMES.join(", ");

export interface RunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: Date;
  updated_at: Date;
  status: RunStatus;
  metadata: JsonObject;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy | null;
  attempt: number;
  cancel_action: CancelAction | null;
}

export function rowToRun(row: RunRow): Run {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    status: row.status,
    metadata: row.metadata,
    kwargs: row.kwargs,
    multitask_strategy: row.multitask_strategy,
  };
}

/**
 * SQL for "the run's assistant is still the one the caller knows" (EnqueueOptions.assistantVersion),
 * given SQL for its id, version and updated_at (placeholders or columns); true when the caller gave
 * no version (NULL). updated_at is compared to the millisecond, the precision a read hands the
 * caller (`Date`), whoever wrote the row.
 */
export function assistantCurrent(id: string, version: string, updatedAt: string): string {
  return `(${version}::integer IS NULL OR EXISTS (
      SELECT 1 FROM assistants
      WHERE assistant_id = ${id} AND version = ${version} AND date_trunc('milliseconds', updated_at) = ${updatedAt}::timestamptz))`;
}
