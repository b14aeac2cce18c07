// The thread/run view at /gantry in a real headless Chromium, on a real `gantry dev` serving a graph
// that interrupts: what a user clicks, and what the API says happened.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sdkClient } from "../e2e/http.js";
import { fixture } from "../e2e/fixture-paths.js";
import { describeWithChromium, expectFitsPhoneWidth, launchBrowser, requireUiBuild, type Browser } from "../support/browser.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";

// Waits are for things the page shows; the deadline only bounds a failure.
const SHOWN_WITHIN_MS = 15_000;

describeWithChromium("the thread/run view at /gantry", () => {
  let server: RunningGantry;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireUiBuild("index.html");
    server = await startGantry({ config: fixture("ui", "langgraph.json") });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(SHOWN_WITHIN_MS);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = (path: string) => page.goto(`${server.url}/gantry/${path}`);
  const shown = (selector: string, text: string | RegExp) => page.locator(selector).filter({ hasText: text }).first().waitFor();

  it("draws the assistant's graph, conditional edges dashed", async () => {
    await open("");
    await page.locator('.graph [data-node="approve"]').waitFor();
    expect(await page.locator(".graph [data-node]").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-node")))).toEqual([
      "__start__",
      "draft",
      "approve",
      "publish",
      "__end__",
    ]);
    expect(await page.locator(".graph .edge.conditional").count()).toBe(2);
  });

  it("starts a run from the run panel and shows its streamed output, then the interrupt", async () => {
    await open("");
    await page.getByRole("button", { name: "New thread with this assistant" }).click();
    await page.waitForURL(/\/gantry\/threads\/[0-9a-f-]{36}/);
    const threadId = new URL(page.url()).pathname.split("/").pop()!;

    await page.getByLabel("Input (JSON)").fill('{"topic": "otters"}');
    await page.getByRole("button", { name: "Start run" }).click();
    await shown(".events .event", /A post about otters/);
    await shown(".resume", /Publish this draft\?/);
    await shown(".status", "interrupted");

    const state = await sdkClient(server.url).threads.getState(threadId);
    expect(state.values).toMatchObject({ topic: "otters", text: "A post about otters" });
    expect(state.next).toEqual(["approve"]);
  });

  it("resumes an interrupted thread with the value typed in", async () => {
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "review", { input: { topic: "tides" } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    await open(`threads/${thread.thread_id}`);
    await page.getByLabel("Resume value (JSON)").fill('"yes"');
    await page.getByRole("button", { name: "Resume" }).click();
    await shown(".events .event", /"published": true/);
    await shown(".status", "idle");
    await shown('[aria-label="Current state"]', /"decision": "yes"/);

    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ topic: "tides", decision: "yes", published: true });
    expect(state.next).toEqual([]);
  });

  it("lists threads with their status, searches them by metadata, and opens one's state and history", async () => {
    const client = sdkClient(server.url);
    const blue = await client.threads.create({ metadata: { team: "blue" } });
    await client.runs.wait(blue.thread_id, "review", { input: { topic: "kelp" } });
    const red = await client.threads.create({ metadata: { team: "red" } });

    await open("threads");
    await page.locator(`tr[data-thread="${red.thread_id}"]`).waitFor();
    await page.getByLabel("Metadata (JSON)").fill('{"team": "blue"}');
    await page.getByRole("button", { name: "Search" }).click();
    await page.locator(`tr[data-thread="${red.thread_id}"]`).waitFor({ state: "detached" });
    const rows = page.locator("tr[data-thread]");
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-thread")))).toEqual([blue.thread_id]);
    expect(await rows.locator(".status").textContent()).toBe("interrupted");

    await rows.getByRole("link").click();
    await shown('[aria-label="Current state"]', /A post about kelp/);
    await shown('[aria-label="History"] li', /step 1.*→ approve/);
    expect(await page.locator('[aria-label="History"] li').count()).toBe((await client.threads.getHistory(blue.thread_id)).length);
  });

  it("shows the API's detail when a call fails, and refuses input that is not JSON", async () => {
    await open("threads/00000000-0000-4000-8000-000000000000");
    await shown(".error", /HTTP 404: Thread 00000000-0000-4000-8000-000000000000 not found/);

    await open("threads");
    await page.getByLabel("Metadata (JSON)").fill("{team: blue}");
    await page.getByRole("button", { name: "Search" }).click();
    await shown(".error", /Metadata is not valid JSON/);
  });

  it("sends the auth header entered in the top bar with the page's API calls", async () => {
    await open("threads");
    await page.getByText("Auth header").click();
    await page.getByLabel("Header").fill("x-api-key");
    await page.getByLabel("Value").fill("secret-for-this-tab");
    const searched = page.waitForRequest((r) => r.url().endsWith("/threads/search"));
    await page.getByRole("button", { name: "Save for this tab" }).click();
    expect((await searched).headers()["x-api-key"]).toBe("secret-for-this-tab");
    await shown("details.auth summary", "Auth: x-api-key");

    await page.evaluate(() => sessionStorage.clear());
  });

  it("works under a mount prefix, calling the API under the same prefix", async () => {
    const prefixed = await startGantry({ config: fixture("ui", "langgraph.json"), env: { MOUNT_PREFIX: "/agents" } });
    try {
      expect(new URL(prefixed.url).pathname).toBe("/agents");
      const thread = await sdkClient(prefixed.url).threads.create({ metadata: { where: "prefixed" } });
      await page.goto(`${prefixed.url}/gantry/threads`);
      await page.locator(`tr[data-thread="${thread.thread_id}"] a`).click();
      await page.waitForURL(`${prefixed.url}/gantry/threads/${thread.thread_id}`);
      await shown('[aria-label="Current state"]', /"where":"prefixed"/);
    } finally {
      await prefixed.stop();
    }
  });

  it("fits a phone's width without sideways scrolling", async () => {
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "review", { input: { topic: "a rather long topic to wrap around on a narrow screen" } });
    await expectFitsPhoneWidth(page, open, ["", "threads", `threads/${thread.thread_id}`]);
  });
});
