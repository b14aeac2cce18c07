// Run-completion webhooks end to end: a real `gantry dev` and a real HTTP receiver in the test.
// Delivery settings are shortened through the environment (timeout, backoff, poll) so retries take
// milliseconds; nothing asserts on time.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { verifyWebhook } from "../../src/webhooks/signature.js";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { eventually, request, sdkClient } from "./http.js";
import { collect } from "./runs-support.js";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const CONFIG = fixture("webhooks", "langgraph.json");
const DEFAULT_POLICY_CONFIG = fixture("webhooks", "langgraph.default-policy.json");
const DISABLED_CONFIG = fixture("webhooks", "langgraph.disabled.json");
const SECRET = "whsec_" + Buffer.from("a test signing key of 32 bytes!!").toString("base64");

const ENV = {
  BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0",
  LG_WEBHOOK_TOKEN: "tok-123",
  GANTRY_WEBHOOK_SIGNING_SECRET: SECRET,
  GANTRY_WEBHOOK_TIMEOUT_MS: "1500",
  GANTRY_WEBHOOK_RETRY_BASE_MS: "20",
  GANTRY_WEBHOOK_RETRY_MAX_MS: "100",
  GANTRY_WEBHOOK_POLL_MS: "100",
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function webhookAttempts(gantry: RunningGantry): Promise<Record<string, number>> {
  const response = await request(gantry.url, "GET", "/metrics?format=json");
  return (response.json as { webhook_attempts: Record<string, number> }).webhook_attempts;
}

async function deliveriesOf(store: GantryStore, runId: string) {
  const storage = await store.openStorage();
  try {
    return await storage.webhooks.listForRun(runId);
  } finally {
    await storage.close();
  }
}

/**
 * Waits until each run's delivery is recorded as finished, so its attempt is counted in /metrics
 * before the next test reads the counters.
 */
async function settled(store: GantryStore, runIds: string[]): Promise<void> {
  for (const runId of runIds) {
    await eventually(`the delivery of run ${runId} to be recorded`, async () => {
      const rows = await deliveriesOf(store, runId);
      return rows.length > 0 && rows.every((r) => r.status !== "pending") ? true : undefined;
    });
  }
}

export function describeWebhooksE2E(label: string, openStore: OpenStore): void {
  describe(`webhooks end to end (${label})`, () => {
    let store: GantryStore;
    let gantry: RunningGantry;
    let client: Client;
    let receiver: WebhookReceiver;

    let clockDir: string;
    let clockFile: string;

    beforeAll(async () => {
      // Crons read this clock, so a test moves a schedule to its next minute without waiting for it.
      clockDir = await mkdtemp(join(tmpdir(), "gantry-webhook-clock-"));
      clockFile = join(clockDir, "clock");
      await writeFile(clockFile, "2030-01-01T10:00:30.000Z\n");
      store = await openStore();
      gantry = await store.start(CONFIG, { ...ENV, GANTRY_CRON_CLOCK_FILE: clockFile });
      client = sdkClient(gantry.url);
    });
    afterAll(async () => {
      await gantry?.stop();
      await store?.dispose();
      if (clockDir) await rm(clockDir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await receiver.close();
    });

    it("posts the finished run as JSON with its values, times, headers and the URL's token", async () => {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "echo", { input: { text: "hi" }, webhook: `${receiver.url}/hooks/done?token=abc` });
      const [hook] = await receiver.waitFor(1);

      expect(hook!.method).toBe("POST");
      expect(hook!.path).toBe("/hooks/done?token=abc");
      expect(hook!.headers["content-type"]).toBe("application/json");
      expect(hook!.headers["x-static"]).toBe("static-value");
      expect(hook!.headers.authorization).toBe("Bearer tok-123");
      expect(hook!.headers["webhook-id"]).toMatch(UUID);
      expect(hook!.json).toMatchObject({
        run_id: run.run_id,
        thread_id: thread.thread_id,
        assistant_id: run.assistant_id,
        status: "success",
        metadata: {},
        multitask_strategy: "enqueue",
        values: { text: "hi", reply: "echo: hi" },
        error: null,
        created_at: run.created_at,
        run_started_at: expect.stringMatching(ISO),
        run_ended_at: expect.stringMatching(ISO),
        webhook_sent_at: expect.stringMatching(ISO),
      });
      expect((hook!.json.kwargs as { webhook: string }).webhook).toBe(`${receiver.url}/hooks/done?token=abc`);
      const { run_started_at, run_ended_at, webhook_sent_at } = hook!.json as Record<string, string>;
      expect(Date.parse(run_started_at!)).toBeLessThanOrEqual(Date.parse(run_ended_at!));
      expect(Date.parse(run_ended_at!)).toBeLessThanOrEqual(Date.parse(webhook_sent_at!));
      expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
      await settled(store, [run.run_id]);
    });

    it("sends the webhook of runs from every endpoint that takes one: stream, wait and batch, on a thread or not, and a cron's", async () => {
      const hook = (name: string) => `${receiver.url}/${name}`;
      const expected = new Map<string, string>();
      const created = (name: string) => ({ webhook: hook(name), onRunCreated: ({ run_id }: { run_id: string }) => void expected.set(`/${name}`, run_id) });

      const thread = await client.threads.create();
      await collect(client.runs.stream(thread.thread_id, "echo", { input: { text: "s" }, ...created("stream-thread") }));
      await collect(client.runs.stream(null, "echo", { input: { text: "s" }, ...created("stream-stateless") }));
      await client.runs.wait(thread.thread_id, "echo", { input: { text: "w" }, ...created("wait-thread") });
      await client.runs.wait(null, "echo", { input: { text: "w" }, ...created("wait-stateless") });
      const batch = (await client.runs.createBatch([
        { assistantId: "echo", input: { text: "b0" }, webhook: hook("batch-0") },
        { assistantId: "echo", input: { text: "b1" }, webhook: hook("batch-1") },
      ])) as Array<{ run_id: string }>;
      expected.set("/batch-0", batch[0]!.run_id).set("/batch-1", batch[1]!.run_id);

      const cron = await client.crons.create("echo", { schedule: "* * * * *", input: { text: "c" }, webhook: hook("cron") });
      expect(cron.payload).toMatchObject({ webhook: hook("cron") });
      await writeFile(clockFile, "2030-01-01T10:01:00.000Z\n");

      const hooks = await receiver.waitFor(expected.size + 1);
      await client.crons.delete(cron.cron_id);
      const byPath = new Map(hooks.map((h) => [h.path, h.json]));
      expect([...byPath.keys()].sort()).toEqual([...expected.keys(), "/cron"].sort());
      for (const [path, runId] of expected) expect(byPath.get(path), path).toMatchObject({ run_id: runId, status: "success" });
      expect(byPath.get("/cron")).toMatchObject({ status: "success", metadata: { cron_id: cron.cron_id }, values: { text: "c", reply: "echo: c" } });
      await settled(
        store,
        hooks.map((h) => h.json.run_id as string),
      );
    });

    it("sends a failed run's error as {error, message}, for stateless runs too", async () => {
      await client.runs.create(null, "fails", { input: { text: "x" }, webhook: `${receiver.url}/failed` });
      const [hook] = await receiver.waitFor(1);
      expect(hook!.json).toMatchObject({ status: "error", error: { error: "BoomError", message: "boom" } });
      await settled(store, [hook!.json.run_id as string]);
    });

    it("sends the webhook of a cancelled run with status interrupted", async () => {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "slow", { input: { ms: 60_000, label: "cut" }, webhook: `${receiver.url}/cancelled` });
      await eventually("the run to be running", async () => ((await client.runs.get(thread.thread_id, run.run_id)).status === "running" ? true : undefined));
      await client.runs.cancel(thread.thread_id, run.run_id, true);
      const [hook] = await receiver.waitFor(1);
      expect(hook!.json).toMatchObject({ run_id: run.run_id, status: "interrupted", run_ended_at: expect.stringMatching(ISO) });
      await settled(store, [run.run_id]);
    });

    it("sends the webhook of a run cancelled while still pending, and of one that an interrupt run stopped before it started", async () => {
      const thread = await client.threads.create();
      const later = await client.runs.create(thread.thread_id, "echo", { input: { text: "later" }, afterSeconds: 600, webhook: `${receiver.url}/pending` });
      await client.runs.cancel(thread.thread_id, later.run_id);
      const [cancelled] = await receiver.waitFor(1);
      expect(cancelled!.json).toMatchObject({ run_id: later.run_id, status: "interrupted", run_ended_at: expect.stringMatching(ISO) });

      const queued = await client.runs.create(thread.thread_id, "echo", { input: { text: "queued" }, afterSeconds: 600, webhook: `${receiver.url}/queued` });
      await client.runs.create(thread.thread_id, "echo", { input: { text: "now" }, multitaskStrategy: "interrupt" });
      const hooks = await receiver.waitFor(2);
      expect(hooks[1]!.json).toMatchObject({ run_id: queued.run_id, status: "interrupted" });
      await settled(store, [later.run_id, queued.run_id]);
    });

    it("retries a receiver that fails twice: three attempts with the same delivery id, counted in /metrics", async () => {
      const before = await webhookAttempts(gantry);
      receiver.script(503, 500);
      const run = await client.runs.create(null, "echo", { input: { text: "retry" }, webhook: `${receiver.url}/flaky` });
      const hooks = await receiver.waitFor(3);
      const ids = new Set(hooks.map((h) => h.headers["webhook-id"]));
      expect(ids.size).toBe(1);
      expect(hooks.map((h) => h.json.run_id)).toEqual([run.run_id, run.run_id, run.run_id]);

      const [delivery] = await eventually("the delivery to be recorded as delivered", async () => {
        const rows = await deliveriesOf(store, run.run_id);
        return rows[0]?.status === "delivered" ? rows : undefined;
      });
      expect(delivery).toMatchObject({ delivery_id: [...ids][0], attempts: 3, status: "delivered" });
      const after = await webhookAttempts(gantry);
      expect(after.retry! - before.retry!).toBe(2);
      expect(after.delivered! - before.delivered!).toBe(1);
      expect(receiver.received).toHaveLength(3);
    });

    it("gives up at once on a 4xx other than 408 and 429", async () => {
      const before = await webhookAttempts(gantry);
      receiver.script(404);
      const run = await client.runs.create(null, "echo", { input: { text: "refused" }, webhook: `${receiver.url}/gone` });
      await receiver.waitFor(1);
      const [delivery] = await eventually("the delivery to be recorded as failed", async () => {
        const rows = await deliveriesOf(store, run.run_id);
        return rows[0]?.status === "failed" ? rows : undefined;
      });
      expect(delivery).toMatchObject({ attempts: 1, last_error: expect.stringContaining("HTTP 404") });
      expect((await webhookAttempts(gantry)).failed! - before.failed!).toBe(1);
      expect(receiver.received).toHaveLength(1);
    });

    it("times out a receiver that never answers and sends the webhook again", async () => {
      receiver.script("hang");
      const run = await client.runs.create(null, "echo", { input: { text: "slow" }, webhook: `${receiver.url}/slow` });
      const [first, second] = await receiver.waitFor(2);
      expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
      const [delivery] = await eventually("the delivery to be recorded as delivered", async () => {
        const rows = await deliveriesOf(store, run.run_id);
        return rows[0]?.status === "delivered" ? rows : undefined;
      });
      expect(delivery).toMatchObject({ attempts: 2, last_error: expect.stringContaining("timed out") });
    });

    it("signs the body with HMAC-SHA256 over id, timestamp and body, verifiable with the secret", async () => {
      await client.runs.wait(null, "echo", { input: { text: "signed" }, webhook: `${receiver.url}/signed` });
      const [hook] = await receiver.waitFor(1);
      const headers = {
        id: hook!.headers["webhook-id"] as string,
        timestamp: hook!.headers["webhook-timestamp"] as string,
        signature: hook!.headers["webhook-signature"] as string,
      };
      expect(headers.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifyWebhook(SECRET, headers, hook!.body)).toBe(true);
      expect(verifyWebhook(SECRET, headers, hook!.body.replace("signed", "forged"))).toBe(false);
      expect(verifyWebhook("whsec_" + Buffer.from("another key").toString("base64"), headers, hook!.body)).toBe(false);
    });

    it.each([
      ["a private address", "http://10.1.2.3/hook", /private address/],
      ["a link-local address", "http://[fe80::1]/hook", /link-local/],
      ["the cloud metadata service", "http://169.254.169.254/latest/meta-data", /metadata/],
      ["a name that is no URL", "not a url", /not a valid URL/],
    ])("refuses %s at run creation with 422", async (_what, webhook, detail) => {
      const response = await request(gantry.url, "POST", "/runs", { body: { assistant_id: "echo", input: { text: "x" }, webhook } });
      expect(response.status).toBe(422);
      expect((response.json as { detail: string }).detail).toMatch(detail);
      await expect(client.runs.create(null, "echo", { input: { text: "x" }, webhook })).rejects.toThrow(/HTTP 422/);
    });
  });

  describe(`webhook policy and switches (${label})`, () => {
    let store: GantryStore;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      store = await openStore();
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      await store?.dispose();
    });

    it("refuses loopback and relative webhooks by default", async () => {
      const gantry = await store.start(DEFAULT_POLICY_CONFIG, ENV);
      try {
        for (const [webhook, detail] of [
          [`${receiver.url}/hook`, /loopback/],
          ["http://localhost:9/hook", /loopback/],
          ["/relative/hook", /relative URL/],
        ] as const) {
          const response = await request(gantry.url, "POST", "/runs/wait", { body: { assistant_id: "echo", input: { text: "x" }, webhook } });
          expect(response.status, webhook).toBe(422);
          expect((response.json as { detail: string }).detail).toMatch(detail);
        }
      } finally {
        await gantry.stop();
      }
    });

    it("runs but sends nothing with http.disable_webhooks", async () => {
      const gantry = await store.start(DISABLED_CONFIG, ENV);
      try {
        const client = sdkClient(gantry.url);
        const thread = await client.threads.create();
        const result = await client.runs.wait(thread.thread_id, "echo", { input: { text: "quiet" }, webhook: `${receiver.url}/quiet` });
        expect(result).toMatchObject({ reply: "echo: quiet" });
        const [run] = await client.runs.list(thread.thread_id);
        expect(run!.status).toBe("success");
        // The outcome and the outbox row are written in one transaction: the run is finished, so
        // a webhook would already be recorded.
        expect(await deliveriesOf(store, run!.run_id)).toEqual([]);
        expect(await webhookAttempts(gantry)).toEqual({ delivered: 0, retry: 0, failed: 0 });
        expect(receiver.received).toEqual([]);
      } finally {
        await gantry.stop();
      }
    });

    it("resumes a delivery interrupted by a stop when the server starts again", async () => {
      // A long timeout: the first attempt hangs until the server stops, not until it times out.
      const env = { ...ENV, GANTRY_WEBHOOK_TIMEOUT_MS: "60000" };
      receiver.script("hang");
      const first = await store.start(CONFIG, env);
      let runId: string;
      try {
        const run = await sdkClient(first.url).runs.create(null, "echo", { input: { text: "resume" }, webhook: `${receiver.url}/resume` });
        runId = run.run_id;
        await receiver.waitFor(1);
      } finally {
        await first.stop();
      }
      expect((await deliveriesOf(store, runId))[0]?.status).toBe("pending");

      const second = await store.start(CONFIG, env);
      try {
        const hooks = await receiver.waitFor(2);
        expect(hooks[1]!.headers["webhook-id"]).toBe(hooks[0]!.headers["webhook-id"]);
        expect(hooks[1]!.json.run_id).toBe(runId);
        const [delivery] = await eventually("the resumed delivery to be recorded", async () => {
          const rows = await deliveriesOf(store, runId);
          return rows[0]?.status === "delivered" ? rows : undefined;
        });
        expect(delivery!.attempts).toBe(2);
      } finally {
        await second.stop();
      }
    });

    it("checks the address again at delivery: a pending webhook to localhost, resumed under the default policy, is refused and not retried", async () => {
      const env = { ...ENV, GANTRY_WEBHOOK_TIMEOUT_MS: "60000" };
      receiver.script("hang");
      const permissive = await store.start(CONFIG, env);
      let runId: string;
      const before = receiver.received.length;
      try {
        const port = new URL(receiver.url).port;
        const run = await sdkClient(permissive.url).runs.create(null, "echo", { input: { text: "rebound" }, webhook: `http://localhost:${port}/rebound` });
        runId = run.run_id;
        await receiver.waitFor(before + 1);
      } finally {
        await permissive.stop();
      }

      const strict = await store.start(DEFAULT_POLICY_CONFIG, env);
      try {
        const [delivery] = await eventually("the resumed delivery to be refused", async () => {
          const rows = await deliveriesOf(store, runId);
          return rows[0]?.status === "failed" ? rows : undefined;
        });
        expect(delivery).toMatchObject({ attempts: 2, last_error: expect.stringMatching(/^refused: localhost resolves to .*loopback.*not retried$/) });
        expect(receiver.received).toHaveLength(before + 1);
        expect(await webhookAttempts(strict)).toMatchObject({ delivered: 0, retry: 0, failed: 1 });
      } finally {
        await strict.stop();
      }
    });
  });
}
