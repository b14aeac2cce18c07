// The metrics page at /gantry/metrics in a real headless Chromium, on a real `gantry dev`: runs made
// through the SDK (one with a webhook to a receiver in this test) show in its figures, and more
// runs show after its next refresh, without a reload.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sdkClient } from "../e2e/http.js";
import { fixture } from "../e2e/fixture-paths.js";
import { startReceiver, type WebhookReceiver } from "../e2e/webhook-receiver.js";
import { describeWithChromium, expectFitsPhoneWidth, launchBrowser, requireUiBuild, type Browser } from "../support/browser.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";

// Waits are for what the page shows; the deadline only bounds a failure (a refresh is every 3 s).
const SHOWN_WITHIN_MS = 15_000;

describeWithChromium("the metrics page at /gantry/metrics", () => {
  let server: RunningGantry;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireUiBuild("index.html");
    receiver = await startReceiver();
    server = await startGantry({ config: fixture("ui", "langgraph.json") });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(SHOWN_WITHIN_MS);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  const figure = (id: string) => page.locator(`[data-figure="${id}"]`);
  const shows = (id: string, value: string | RegExp) =>
    figure(id)
      .locator(".value")
      .filter({ hasText: typeof value === "string" ? new RegExp(`^${value}$`) : value })
      .waitFor();
  /** A run that stops at the review graph's interrupt, and one that resumes it to the end. */
  const reviewAndPublish = async (topic: string, webhook?: string) => {
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "review", { input: { topic } });
    await client.runs.wait(thread.thread_id, "review", { command: { resume: "yes" }, ...(webhook ? { webhook } : {}) });
  };

  it("shows the runs made through the SDK: by status with their durations, the queue and the workers", async () => {
    await reviewAndPublish("otters");
    await page.goto(`${server.url}/gantry/`);
    await page.getByRole("link", { name: "Metrics" }).click();
    await page.waitForURL(/\/gantry\/metrics$/);

    await shows("finished", "2");
    expect(await page.getByRole("link", { name: "Metrics" }).getAttribute("class")).toBe("current");
    // A run that stops at an interrupt ends in success (its thread is the one interrupted), as on the platform.
    const statuses = await page.locator("table.by-status tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status")));
    expect(statuses).toEqual(["success"]);
    await shows("pending", "0");
    await shows("running", "0");
    await shows("workers", "0 / 10");
    await shows("duration", /^\d+ ms$|^\d+\.\d s$/);
    await shows("queue-time", /^\d+ ms$/);
    await shows("webhooks", "0");
    expect(await figure("finished").locator(".note").textContent()).toBe("success 2");
  });

  it("refreshes on its own: later runs and a delivered webhook show, and each line gains samples", async () => {
    const line = figure("finished").locator("svg.sparkline polyline");
    // Attached, not visible: a flat line has no height.
    await line.waitFor({ state: "attached" });
    const before = Number(await line.getAttribute("data-samples"));

    await reviewAndPublish("tides", `${receiver.url}/hook`);
    await receiver.waitFor(1);
    await reviewAndPublish("kelp");

    await shows("finished", "6");
    await shows("webhooks", "1");
    expect(Number(await line.getAttribute("data-samples"))).toBeGreaterThan(before);
    // The line climbs: its newest point (right) sits above its oldest (SVG's y grows downwards).
    const heights = (await line.getAttribute("points"))!.split(" ").map((point) => Number(point.split(",")[1]));
    expect(heights.at(-1)).toBeLessThan(heights[0]!);
    expect(await page.locator("table.by-status tr[data-status='success'] td").nth(1).textContent()).toBe("6");
  });

  it("fits a phone's width", async () => {
    await expectFitsPhoneWidth(page, (path) => page.goto(`${server.url}/gantry/${path}`), ["metrics"]);
  });
});
