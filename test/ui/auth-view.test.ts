// The thread/run view (/gantry) on a server with custom auth (test/fixtures/auth), in a real headless Chromium: the
// page loads without credentials, the API refuses it until the user enters their header, and then
// shows that user's threads and nobody else's.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AUTH_CONFIG, clientFor } from "../e2e/auth-isolation.cases.js";
import { describeWithChromium, expectPanelBesideHeadings, launchBrowser, requireUiBuild, type Browser } from "../support/browser.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";

const SHOWN_WITHIN_MS = 15_000;

describeWithChromium("the thread/run view (/gantry) under custom auth", () => {
  let server: RunningGantry;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    requireUiBuild("index.html");
    server = await startGantry({ config: AUTH_CONFIG });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(SHOWN_WITHIN_MS);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const shown = (selector: string, text: string | RegExp) => page.locator(selector).filter({ hasText: text }).first().waitFor();

  it("loads without credentials, then lists only the threads of the user whose header is entered", async () => {
    const hers = await clientFor(server.url, "token-alice").threads.create({ metadata: { via: "ui" } });
    const his = await clientFor(server.url, "token-bob").threads.create({ metadata: { via: "ui" } });

    await page.goto(`${server.url}/gantry/threads`);
    await shown(".error", /HTTP 401: .*Invalid or missing bearer token/);

    await page.getByText("Auth header").click();
    await page.getByLabel("Header").fill("Authorization");
    await page.getByLabel("Value").fill("Bearer token-alice");
    await page.getByRole("button", { name: "Save for this tab" }).click();
    await page.locator(`tr[data-thread="${hers.thread_id}"]`).waitFor();
    expect(await page.locator(`tr[data-thread="${his.thread_id}"]`).count()).toBe(0);
    await page.evaluate(() => sessionStorage.clear());
  });

  it("shows the metrics page's figures only with the header: /metrics is under the API's auth", async () => {
    await page.goto(`${server.url}/gantry/metrics`);
    await shown(".error", /HTTP 401: .*Invalid or missing bearer token/);
    await page.getByText("Auth header").click();
    await page.getByLabel("Header").fill("Authorization");
    await page.getByLabel("Value").fill("Bearer token-alice");
    await page.getByRole("button", { name: "Save for this tab" }).click();
    await page
      .locator('[data-figure="workers"] .value')
      .filter({ hasText: /^\d+ \/ \d+$/ })
      .waitFor();
    expect(await page.locator(".error").count()).toBe(0);
    await page.evaluate(() => sessionStorage.clear());
  });

  it("opens the auth panel on a phone's screen, beside the headings, and takes the header there", async () => {
    const hers = await clientFor(server.url, "token-alice").threads.create({ metadata: { via: "phone" } });
    const phone = await browser.context.newPage();
    phone.setDefaultTimeout(SHOWN_WITHIN_MS);
    try {
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(`${server.url}/gantry/threads`);
      await phone.locator(".error").filter({ hasText: "HTTP 401" }).first().waitFor();
      await phone.getByText("Auth header").click();
      const form = phone.locator("details.auth form");
      await form.waitFor();
      await expectPanelBesideHeadings(phone, form, [phone.locator("header.top h1"), phone.locator("main h2").first()]);
      await phone.getByLabel("Header").fill("Authorization");
      await phone.getByLabel("Value").fill("Bearer token-alice");
      await phone.getByRole("button", { name: "Save for this tab" }).click();
      await phone.locator(`tr[data-thread="${hers.thread_id}"]`).waitFor();
    } finally {
      await phone.close();
    }
  });
});
