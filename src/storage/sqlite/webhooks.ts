// WebhookOutbox on SQLite. One process owns the file, so a claim is an IMMEDIATE transaction that
// picks due rows and leases them; the lease still matters across a restart of that process.
import type Database from "better-sqlite3";
import type { NewWebhookDelivery, WebhookDelivery, WebhookDeliveryStatus, WebhookOutbox } from "../webhook-ports.js";
import { parseJson, statementCache } from "./sql-helpers.js";

const COLUMNS = "delivery_id, run_id, url, payload, status, attempts, last_error, created_at, updated_at";

interface DeliveryRow {
  delivery_id: string;
  run_id: string;
  url: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

function rowToDelivery(row: DeliveryRow): WebhookDelivery {
  return { ...row, payload: parseJson(row.payload) };
}

/** Writes a delivery row; called inside the transaction that finishes its run. */
export function insertWebhookDelivery(db: Database.Database, delivery: NewWebhookDelivery, now: string): void {
  db.prepare(
    `INSERT INTO webhook_deliveries (delivery_id, run_id, url, payload, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  ).run(delivery.delivery_id, delivery.run_id, delivery.url, JSON.stringify(delivery.payload), now, now, now);
}

export function sqliteWebhooks(db: Database.Database): WebhookOutbox {
  const sql = statementCache(db);

  const claimDue = db.transaction((owner: string, leaseMs: number, now: Date, limit: number): WebhookDelivery[] => {
    const stamp = now.toISOString();
    const ids = sql(
      `SELECT delivery_id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
       ORDER BY next_attempt_at LIMIT ?`,
    ).all(stamp, stamp, limit) as Array<{ delivery_id: string }>;
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    return ids.map(({ delivery_id }) => {
      sql("UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?, attempts = attempts + 1, updated_at = ? WHERE delivery_id = ?").run(
        owner,
        leaseUntil,
        stamp,
        delivery_id,
      );
      return rowToDelivery(sql(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE delivery_id = ?`).get(delivery_id) as DeliveryRow);
    });
  });

  return {
    async claimDue(owner, leaseMs, now, limit) {
      return claimDue.immediate(owner, leaseMs, now, limit);
    },
    async recordAttempt(deliveryId, owner, result, now) {
      const stamp = now.toISOString();
      const status = result.outcome === "retry" ? "pending" : result.outcome;
      const next = result.outcome === "retry" ? result.next_attempt_at.toISOString() : stamp;
      const error = result.outcome === "delivered" ? null : result.error;
      const changed = sql(
        `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, last_error = COALESCE(?, last_error), lease_owner = NULL, lease_until = NULL, updated_at = ?
         WHERE delivery_id = ? AND lease_owner = ? AND status = 'pending'`,
      ).run(status, next, error, stamp, deliveryId, owner);
      return changed.changes === 1;
    },
    async releaseExpired(expiredBefore) {
      const changed = sql("UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE status = 'pending' AND lease_until < ?").run(
        expiredBefore.toISOString(),
      );
      return changed.changes;
    },
    async get(deliveryId) {
      const row = sql(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE delivery_id = ?`).get(deliveryId) as DeliveryRow | undefined;
      return row ? rowToDelivery(row) : null;
    },
    async listForRun(runId) {
      const rows = sql(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE run_id = ? ORDER BY created_at, delivery_id`).all(runId) as DeliveryRow[];
      return rows.map(rowToDelivery);
    },
    async nextDueAt() {
      const row = sql("SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NULL").get() as {
        at: string | null;
      };
      return row.at ? new Date(row.at) : null;
    },
  };
}
