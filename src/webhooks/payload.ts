// The webhook body (spec §5): the run record with its final status, the thread's values, the error
// as {error, message}, and when the run started and ended. It is fixed when the run finishes;
// `webhook_sent_at` is stamped by each attempt.
import { newId } from "../ids.js";
import type { JsonObject, Run } from "../storage/records.js";
import type { RunOutcome } from "../storage/run-ports.js";
import type { NewWebhookDelivery } from "../storage/webhook-ports.js";

export interface FinishedRun {
  run: Run;
  outcome: RunOutcome;
  startedAt: Date;
  endedAt: Date;
}

export function webhookPayload({ run, outcome, startedAt, endedAt }: FinishedRun): JsonObject {
  const ended = endedAt.toISOString();
  return {
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    created_at: run.created_at,
    updated_at: ended,
    status: outcome.status,
    metadata: run.metadata,
    kwargs: run.kwargs,
    multitask_strategy: run.multitask_strategy,
    run_started_at: startedAt.toISOString(),
    run_ended_at: ended,
    values: outcome.values ?? null,
    error: outcome.error ?? null,
  };
}

/** The outbox row for a finished run that named a webhook; none for a run without one. */
export function webhookDelivery(finished: FinishedRun): NewWebhookDelivery | undefined {
  const url = finished.run.kwargs.webhook;
  if (url === null) return undefined;
  return { delivery_id: newId(), run_id: finished.run.run_id, url, payload: webhookPayload(finished) };
}

/** The exact bytes one attempt sends (and signs). */
export function webhookBody(payload: JsonObject, sentAt: Date): string {
  return JSON.stringify({ ...payload, webhook_sent_at: sentAt.toISOString() });
}
