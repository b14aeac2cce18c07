// The UI tests' browser: the system's Chromium (Debian's `chromium` package) driven headless by
// playwright-core, with a fresh profile per launch. Where it is missing, a suite is skipped with
// the reason in its name on a laptop, and fails in CI, like the PostgreSQL suites.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { UI_BUILD_DIR } from "../../src/server/ui.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const HOW_TO_INSTALL = "apt-get update && apt-get install -y chromium (or set CHROMIUM_PATH)";

// Quiet and offline: no GPU, no QUIC, and none of the background calls a fresh profile makes.
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "gantry-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: FLAGS,
      viewport,
    });
    return {
      context,
      async close() {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
}

/** `describe` when Chromium is installed; otherwise a visibly skipped suite, or a failing one in CI. */
export function describeWithChromium(name: string, body: () => void, options: { timeout?: number } = {}): void {
  if (existsSync(CHROMIUM_PATH)) {
    describe(name, options, body);
    return;
  }
  const reason = `Chromium is not installed at ${CHROMIUM_PATH}`;
  if (process.env.CI === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reason}; CI needs it: ${HOW_TO_INSTALL}`);
      });
      it("runs in Chromium", () => {});
    });
    return;
  }
  describe.skip(`${name} (skipped: ${reason}; to run it, ${HOW_TO_INSTALL})`, body);
}

/** Fails with the fix when the page a test opens was never built (the browser would show a 404). */
export function requireUiBuild(page: "index.html" | "dashboard.html"): void {
  if (!existsSync(join(UI_BUILD_DIR, page))) throw new Error(`The UI is not built in ${UI_BUILD_DIR}: run npm run build`);
}

/**
 * Opens each path at a phone's width (390 px) once its first panel is drawn and nothing is loading,
 * and checks the page does not scroll sideways; the viewport is restored after.
 */
export async function expectFitsPhoneWidth(page: Page, open: (path: string) => Promise<unknown>, paths: string[]): Promise<void> {
  const restore = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const path of paths) {
      await open(path);
      await page.locator("main .panel").first().waitFor();
      await page.locator(".progress").waitFor({ state: "detached" });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
    }
  } finally {
    if (restore) await page.setViewportSize(restore);
  }
}

/**
 * Checks an open auth panel at a phone's width: all of it on the screen, and each heading still
 * showing (the topmost element at its centre is the heading, not the panel over it).
 */
export async function expectPanelBesideHeadings(page: Page, panel: Locator, headings: Locator[]): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  const box = await panel.boundingBox();
  expect(box, "the panel is laid out").not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(width);
  for (const heading of headings) {
    const shown = await heading.evaluate((el) => {
      const { x, y, width, height } = el.getBoundingClientRect();
      const top = document.elementFromPoint(x + width / 2, y + height / 2);
      return top !== null && el.contains(top);
    });
    expect(shown, `${await heading.textContent()} is not covered`).toBe(true);
  }
}
