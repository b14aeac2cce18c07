// The /ui view on a server with custom auth (test/fixtures/auth), in a real headless Chromium: the
// page loads without credentials, the API refuses it until the user enters their header, and then
// shows that user's threads and nobody else's.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AUTH_CONFIG, clientFor } from "../e2e/auth-isolation.cases.js";
import { describeWithChromium, launchBrowser, requireUiBuild, type Browser } from "../support/browser.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";

const SHOWN_WITHIN_MS = 15_000;

describeWithChromium("the /ui view under custom auth", () => {
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

    await page.goto(`${server.url}/ui/threads`);
    await shown(".error", /HTTP 401: .*Invalid or missing bearer token/);

    await page.getByText("Auth header").click();
    await page.getByLabel("Header").fill("Authorization");
    await page.getByLabel("Value").fill("Bearer token-alice");
    await page.getByRole("button", { name: "Save for this tab" }).click();
    await page.locator(`tr[data-thread="${hers.thread_id}"]`).waitFor();
    expect(await page.locator(`tr[data-thread="${his.thread_id}"]`).count()).toBe(0);
    await page.evaluate(() => sessionStorage.clear());
  });
});
