// Takes README's pictures of the /ui pages (docs/ui-*.png): a real `gantry dev` on the UI test
// graph, a few threads made through the SDK, and the same headless Chromium the tests use.
// Run with `npm run ui:screenshots` after `npm run build`.
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sdkClient } from "../e2e/http.js";
import { fixture } from "../e2e/fixture-paths.js";
import { launchBrowser } from "../support/browser.js";
import { startGantry } from "../support/gantry-process.js";

const DOCS = resolve(fileURLToPath(new URL("../../docs", import.meta.url)));

const server = await startGantry({ config: fixture("ui", "langgraph.json") });
const browser = await launchBrowser({ width: 1280, height: 800 });
try {
  const client = sdkClient(server.url);
  for (const [team, topic] of [["blue", "otters"], ["red", "tides"], ["blue", "kelp forests"]] as const) {
    const thread = await client.threads.create({ metadata: { team, user: "ada" } });
    await client.runs.wait(thread.thread_id, "review", { input: { topic } });
    if (topic === "tides") await client.runs.wait(thread.thread_id, "review", { command: { resume: "yes" } });
  }
  await client.threads.create({ metadata: { team: "green" } });

  const page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  const settle = () => page.locator(".progress").first().waitFor({ state: "detached" });

  await page.goto(`${server.url}/ui/`);
  await page.locator('.graph [data-node="approve"]').waitFor();
  await page.screenshot({ path: join(DOCS, "ui-assistants.png") });

  await page.goto(`${server.url}/ui/threads`);
  await page.locator("tr[data-thread]").first().waitFor();
  await settle();
  await page.screenshot({ path: join(DOCS, "ui-threads.png") });

  const thread = await client.threads.create({ metadata: { team: "blue", user: "ada" } });
  await page.goto(`${server.url}/ui/threads/${thread.thread_id}?assistant=review`);
  await page.getByLabel("Input (JSON)").fill('{"topic": "sea otters"}');
  await page.getByRole("button", { name: "Start run" }).click();
  await page.locator(".resume").waitFor();
  await page.locator(".status", { hasText: "interrupted" }).waitFor();
  await settle();
  await page.screenshot({ path: join(DOCS, "ui-thread.png"), fullPage: true });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.locator(".resume").waitFor();
  await settle();
  await page.screenshot({ path: join(DOCS, "ui-thread-phone.png") });
  console.log(`Wrote ${["ui-assistants", "ui-threads", "ui-thread", "ui-thread-phone"].map((n) => `docs/${n}.png`).join(", ")}`);
} finally {
  await browser.close();
  await server.stop();
}
