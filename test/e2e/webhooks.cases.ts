// Run-completion webhooks end to end: a real `gantry dev` and a real HTTP receiver in the test.
// Delivery settings are shortened through the environment (timeout, backoff, poll) so retries take
// milliseconds; nothing asserts on time.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { verifyWebhook } from "../../src/webhooks/signature.js";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { eventually, request, sdkClient } from "./http.js";
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

export function describeWebhooksE2E(label: string, openStore: OpenStore): void {
  describe(`webhooks end to end (${label})`, () => {
    let store: GantryStore;
    let gantry: RunningGantry;
    let client: Client;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      store = await openStore();
      gantry = await store.start(CONFIG, ENV);
      client = sdkClient(gantry.url);
    });
    afterAll(async () => {
      await gantry?.stop();
      await store?.dispose();
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
      expect(hook!.headers["authorization"]).toBe("Bearer tok-123");
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
    });

    it("sends a failed run's error as {error, message}, for stateless runs too", async () => {
      await client.runs.create(null, "fails", { input: { text: "x" }, webhook: `${receiver.url}/failed` });
      const [hook] = await receiver.waitFor(1);
      expect(hook!.json).toMatchObject({ status: "error", error: { error: "BoomError", message: "boom" } });
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
  });
}
