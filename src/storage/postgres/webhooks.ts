// WebhookOutbox on PostgreSQL. Delivery loops on several processes claim with FOR UPDATE SKIP
// LOCKED in one statement, so a due delivery goes to exactly one of them while its lease runs.
import type { Pool, PoolClient } from "pg";
import type { JsonObject } from "../records.js";
import type { NewWebhookDelivery, WebhookDelivery, WebhookDeliveryStatus, WebhookOutbox } from "../webhook-ports.js";
import { run as query } from "./sql-helpers.js";

const COLUMN_NAMES = ["delivery_id", "run_id", "url", "payload", "status", "attempts", "last_error", "created_at", "updated_at"];
const COLUMNS = COLUMN_NAMES.join(", ");
const D_COLUMNS = COLUMN_NAMES.map((c) => `d.${c}`).join(", ");

interface DeliveryRow {
  delivery_id: string;
  run_id: string;
  url: string;
  payload: JsonObject;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

function rowToDelivery(row: DeliveryRow): WebhookDelivery {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** Writes a delivery row; called inside the transaction that finishes its run. */
export async function insertWebhookDelivery(client: PoolClient, delivery: NewWebhookDelivery, now: Date): Promise<void> {
  await query(
    client,
    `INSERT INTO webhook_deliveries (delivery_id, run_id, url, payload, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4::jsonb, 'pending', 0, $5, $5, $5)`,
    [delivery.delivery_id, delivery.run_id, delivery.url, JSON.stringify(delivery.payload), now],
  );
}

export function postgresWebhooks(pool: Pool): WebhookOutbox {
  return {
    async claimDue(owner, leaseMs, now, limit) {
      const { rows } = await query<DeliveryRow>(
        pool,
        `WITH due AS (
           SELECT delivery_id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
           ORDER BY next_attempt_at
           LIMIT $4
           FOR UPDATE SKIP LOCKED
         )
         UPDATE webhook_deliveries d SET lease_owner = $1, lease_until = $2, attempts = d.attempts + 1, updated_at = $3
         FROM due WHERE d.delivery_id = due.delivery_id
         RETURNING ${D_COLUMNS}`,
        [owner, new Date(now.getTime() + leaseMs), now, limit],
      );
      return rows.map(rowToDelivery);
    },
    async recordAttempt(deliveryId, owner, result, now) {
      const status = result.outcome === "retry" ? "pending" : result.outcome;
      const next = result.outcome === "retry" ? result.next_attempt_at : now;
      const error = result.outcome === "delivered" ? null : result.error;
      const changed = await query(
        pool,
        `UPDATE webhook_deliveries SET status = $3, next_attempt_at = $4, last_error = COALESCE($5, last_error), lease_owner = NULL, lease_until = NULL, updated_at = $6
         WHERE delivery_id = $1 AND lease_owner = $2 AND status = 'pending'`,
        [deliveryId, owner, status, next, error, now],
      );
      return changed.rowCount === 1;
    },
    async releaseExpired(expiredBefore) {
      const changed = await query(pool, "UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE status = 'pending' AND lease_until < $1", [
        expiredBefore,
      ]);
      return changed.rowCount ?? 0;
    },
    async get(deliveryId) {
      const { rows } = await query<DeliveryRow>(pool, `SELECT ${COLUMNS} FROM webhook_deliveries WHERE delivery_id = $1`, [deliveryId]);
      return rows[0] ? rowToDelivery(rows[0]) : null;
    },
    async listForRun(runId) {
      const { rows } = await query<DeliveryRow>(pool, `SELECT ${COLUMNS} FROM webhook_deliveries WHERE run_id = $1 ORDER BY created_at, delivery_id`, [runId]);
      return rows.map(rowToDelivery);
    },
    async nextDueAt() {
      const { rows } = await query<{ at: Date | null }>(
        pool,
        "SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NULL",
      );
      return rows[0]?.at ?? null;
    },
  };
}
