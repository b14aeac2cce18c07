// WebhookOutbox cases: a finished run's webhook lands in the outbox with its outcome (and only
// when the outcome is recorded), claims lease due deliveries to one owner, attempts are recorded
// only by the lease holder, retries wait for their time, and lapsed leases are released. Claims see
// every delivery in the database, so each case opens a database of its own.
import { expect } from "vitest";
import type { Storage } from "../../../src/storage/ports.js";
import type { NewRun } from "../../../src/storage/run-ports.js";
import type { NewWebhookDelivery } from "../../../src/storage/webhook-ports.js";
import { ISO_MS, newId, newKwargs, newThread } from "./builders.js";
import type { CaseContext, MigratedStorage, StorageHarness } from "./harness.js";

const LEASE_MS = 30_000;

function newDelivery(runId: string): NewWebhookDelivery {
  return { delivery_id: newId(), run_id: runId, url: "https://hooks.example.com/done?token=abc", payload: { run_id: runId, status: "success" } };
}

/** Enqueues and claims a run, so `finish` can be called for it. */
async function runningRun(storage: Storage): Promise<string> {
  const thread = await storage.threads.create(newThread());
  const run: NewRun = {
    run_id: newId(),
    thread_id: thread!.thread_id,
    assistant_id: newId(),
    metadata: {},
    kwargs: newKwargs(),
    multitask_strategy: null,
    available_at: new Date(Date.now() - 1_000),
  };
  await storage.runs.enqueue(run, { threadMetadata: {}, multitask: "enqueue" });
  const [claimed] = await storage.runs.claim("worker-1", LEASE_MS, new Date(), 1);
  if (claimed?.run_id !== run.run_id) throw new Error("the run was not claimed");
  return run.run_id;
}

export function webhookCases<S extends MigratedStorage>({ test }: CaseContext, harness: StorageHarness<S>): void {
  const fresh = (name: string, body: (storage: S) => Promise<void>) =>
    test(name, async () => {
      const storage = await harness.open();
      try {
        await body(storage);
      } finally {
        await harness.close(storage);
      }
    });

  fresh("writes the webhook delivery in the transaction that finishes the run", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    expect(await s.runs.finish(runId, "worker-1", { status: "success", thread_status: "idle", webhook: delivery })).toBe(true);
    const [stored] = await s.webhooks.listForRun(runId);
    expect(stored).toEqual({
      ...delivery,
      status: "pending",
      attempts: 0,
      last_error: null,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
    });
  });

  fresh("keeps the webhook of a run whose temporary thread is deleted", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    await s.runs.finish(runId, "worker-1", { status: "success", thread_status: "idle", delete_thread: true, webhook: delivery });
    expect(await s.runs.get(runId)).toBeNull();
    expect((await s.webhooks.get(delivery.delivery_id))?.status).toBe("pending");
  });

  fresh("writes no webhook when the finishing worker lost the lease", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    expect(await s.runs.finish(runId, "worker-2", { status: "success", thread_status: "idle", webhook: delivery })).toBe(false);
    expect(await s.webhooks.listForRun(runId)).toEqual([]);
  });

  fresh("leases a due delivery to one claimer and counts the attempt", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    await s.runs.finish(runId, "worker-1", { status: "success", thread_status: "idle", webhook: delivery });
    const now = new Date(Date.now() + 1_000);
    const [first, second] = await Promise.all([s.webhooks.claimDue("a", LEASE_MS, now, 10), s.webhooks.claimDue("b", LEASE_MS, now, 10)]);
    const claimed = [...first, ...second];
    expect(claimed.map((d) => d.delivery_id)).toEqual([delivery.delivery_id]);
    expect(claimed[0]!.attempts).toBe(1);
    expect(await s.webhooks.claimDue("c", LEASE_MS, now, 10)).toEqual([]);
  });

  fresh("records an attempt only for the lease holder and then releases the delivery", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    await s.runs.finish(runId, "worker-1", { status: "success", thread_status: "idle", webhook: delivery });
    const now = new Date(Date.now() + 1_000);
    await s.webhooks.claimDue("a", LEASE_MS, now, 10);
    expect(await s.webhooks.recordAttempt(delivery.delivery_id, "b", { outcome: "delivered" }, now)).toBe(false);
    expect(await s.webhooks.recordAttempt(delivery.delivery_id, "a", { outcome: "delivered" }, now)).toBe(true);
    expect((await s.webhooks.get(delivery.delivery_id))?.status).toBe("delivered");
    expect(await s.webhooks.recordAttempt(delivery.delivery_id, "a", { outcome: "delivered" }, now)).toBe(false);
    expect(await s.webhooks.claimDue("a", LEASE_MS, new Date(now.getTime() + LEASE_MS * 2), 10)).toEqual([]);
  });

  fresh("holds a retried delivery until its next attempt time, then claims it again", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    await s.runs.finish(runId, "worker-1", { status: "error", thread_status: "error", webhook: delivery });
    const now = new Date(Date.now() + 1_000);
    await s.webhooks.claimDue("a", LEASE_MS, now, 10);
    const retryAt = new Date(now.getTime() + 5_000);
    await s.webhooks.recordAttempt(delivery.delivery_id, "a", { outcome: "retry", next_attempt_at: retryAt, error: "HTTP 503" }, now);
    expect(await s.webhooks.nextDueAt()).toEqual(retryAt);
    expect(await s.webhooks.claimDue("a", LEASE_MS, new Date(retryAt.getTime() - 1), 10)).toEqual([]);
    const [again] = await s.webhooks.claimDue("b", LEASE_MS, retryAt, 10);
    expect(again).toMatchObject({ delivery_id: delivery.delivery_id, attempts: 2, last_error: "HTTP 503", status: "pending" });
    await s.webhooks.recordAttempt(delivery.delivery_id, "b", { outcome: "failed", error: "HTTP 400" }, retryAt);
    expect(await s.webhooks.get(delivery.delivery_id)).toMatchObject({ status: "failed", last_error: "HTTP 400", attempts: 2 });
    expect(await s.webhooks.nextDueAt()).toBeNull();
  });

  fresh("makes a delivery claimable again when its lease runs out or is released", async (s) => {
    const runId = await runningRun(s);
    const delivery = newDelivery(runId);
    await s.runs.finish(runId, "worker-1", { status: "success", thread_status: "idle", webhook: delivery });
    const now = new Date(Date.now() + 1_000);
    await s.webhooks.claimDue("a", LEASE_MS, now, 10);
    const lapsed = new Date(now.getTime() + LEASE_MS + 1);
    expect((await s.webhooks.claimDue("b", LEASE_MS, lapsed, 10)).map((d) => d.delivery_id)).toEqual([delivery.delivery_id]);
    expect(await s.webhooks.releaseExpired(new Date(lapsed.getTime() + LEASE_MS + 1))).toBe(1);
    expect(await s.webhooks.nextDueAt()).not.toBeNull();
    const [third] = await s.webhooks.claimDue("c", LEASE_MS, lapsed, 10);
    expect(third?.attempts).toBe(3);
    expect(await s.webhooks.recordAttempt(delivery.delivery_id, "b", { outcome: "delivered" }, lapsed)).toBe(false);
  });
}
