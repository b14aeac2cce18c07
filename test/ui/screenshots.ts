// Takes README's pictures of the /gantry pages (docs/ui-*.png): a real `gantry dev` on the UI test
// graph, a few threads made through the SDK, and the same headless Chromium the tests use; then of
// the control plane's dashboard (docs/dashboard-*.png): a real `gantry control-plane` deploying the
// control-plane tests' fixture repository. Run with `npm run ui:screenshots` after `npm run build`.
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sdkClient } from "../e2e/http.js";
import { fixture } from "../e2e/fixture-paths.js";
import { startReceiver } from "../e2e/webhook-receiver.js";
import { launchBrowser } from "../support/browser.js";
import { startGantry } from "../support/gantry-process.js";
import { API_KEY, api, controlPlaneDataDir, createBody, createFixtureRepo, revisionSettles, startControlPlane, waitFor } from "../control-plane/support.js";

const DOCS = resolve(fileURLToPath(new URL("../../docs", import.meta.url)));

// `npm run ui:screenshots -- ui` or `-- dashboard` takes one set only.
const only = process.argv[2];
if (only === undefined || only === "ui") await threadViewScreenshots();
if (only === undefined || only === "dashboard") await dashboardScreenshots();

async function threadViewScreenshots(): Promise<void> {
  const server = await startGantry({ config: fixture("ui", "langgraph.json") });
  const receiver = await startReceiver();
  const browser = await launchBrowser({ width: 1280, height: 800 });
  try {
    const client = sdkClient(server.url);
    // Open from the start, so its lines draw the runs below as they happen.
    const metrics = await browser.context.newPage();
    metrics.setDefaultTimeout(30_000);
    await metrics.goto(`${server.url}/gantry/metrics`);
    await metrics.locator('[data-figure="finished"] polyline').waitFor({ state: "attached" });
    for (const [team, topic] of [
      ["blue", "otters"],
      ["red", "tides"],
      ["blue", "kelp forests"],
    ] as const) {
      const thread = await client.threads.create({ metadata: { team, user: "ada" } });
      await client.runs.wait(thread.thread_id, "review", { input: { topic } });
      if (topic === "tides") await client.runs.wait(thread.thread_id, "review", { command: { resume: "yes" }, webhook: `${receiver.url}/hook` });
    }
    await client.threads.create({ metadata: { team: "green" } });

    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    const settle = () => page.locator(".progress").first().waitFor({ state: "detached" });

    await page.goto(`${server.url}/gantry/`);
    await page.locator('.graph [data-node="approve"]').waitFor();
    await page.screenshot({ path: join(DOCS, "ui-assistants.png") });

    await page.goto(`${server.url}/gantry/threads`);
    await page.locator("tr[data-thread]").first().waitFor();
    await settle();
    await page.screenshot({ path: join(DOCS, "ui-threads.png") });

    const thread = await client.threads.create({ metadata: { team: "blue", user: "ada" } });
    await page.goto(`${server.url}/gantry/threads/${thread.thread_id}?assistant=review`);
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
    // The figures of every run above, and a few refreshes of lines (a sample every 3 s).
    await metrics.locator('[data-figure="webhooks"] .value', { hasText: /^1$/ }).waitFor();
    // Twelve samples take 36 s from the page's opening, past the page's default timeout.
    await metrics.waitForFunction(() => Number(document.querySelector('[data-figure="finished"] polyline')?.getAttribute("data-samples")) >= 12, undefined, {
      timeout: 60_000,
    });
    await metrics.screenshot({ path: join(DOCS, "ui-metrics.png") });

    console.log(`Wrote ${["ui-assistants", "ui-threads", "ui-thread", "ui-thread-phone", "ui-metrics"].map((n) => `docs/${n}.png`).join(", ")}`);
  } finally {
    await browser.close();
    await server.stop();
    await receiver.close();
  }
}

async function dashboardScreenshots(): Promise<void> {
  const repo = createFixtureRepo();
  repo.commit("v1");
  const cp = await startControlPlane(controlPlaneDataDir());
  const browser = await launchBrowser({ width: 1280, height: 800 });
  try {
    const client = api(cp.url);
    const created = await client.call(
      "POST",
      "/v2/deployments",
      createBody("support-agent", repo.url, { secrets: [{ name: "OPENAI_API_KEY", value: "sk-not-a-real-key" }] }),
    );
    const id = created.body.id as string;
    await revisionSettles(client, id, created.body.latest_revision_id);
    repo.commit("v2");
    const patched = await client.call("PATCH", `/v2/deployments/${id}`, {
      source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
      secrets: [
        { name: "OPENAI_API_KEY", value: "********" },
        { name: "SEARCH_API_KEY", value: "not-a-real-key" },
      ],
    });
    if (patched.status !== 200) throw new Error(`PATCH answered ${patched.status}: ${JSON.stringify(patched.body)}`);
    const latest = patched.body.latest_revision_id as string;
    await revisionSettles(client, id, latest);
    const other = await client.call("POST", "/v2/deployments", createBody("research-bot", repo.url));
    await revisionSettles(client, other.body.id, other.body.latest_revision_id);

    const page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${cp.url}/`);
    await page.evaluate((key) => sessionStorage.setItem("gantry.auth-header", JSON.stringify({ name: "X-Api-Key", value: key })), API_KEY);
    await page.reload();
    await page.locator("tr[data-deployment] .status", { hasText: "DEPLOYED" }).nth(1).waitFor();
    await page.screenshot({ path: join(DOCS, "dashboard-deployments.png") });

    await page.goto(`${cp.url}/view/${id}?revision=${latest}`);
    await page.locator('[aria-label="build log"]', { hasText: "Importing the graphs" }).waitFor();
    await waitFor("the live revision marked", async () => ((await page.locator(`tr[data-revision="${latest}"] .live`).count()) > 0 ? true : undefined));
    await page.screenshot({ path: join(DOCS, "dashboard-deployment.png"), fullPage: true });

    await page.goto(`${cp.url}/new`);
    await page.getByLabel("Name").fill("my-agent");
    await page.getByLabel("Repository URL").fill("https://github.com/me/agent.git");
    await page.getByRole("button", { name: "Add secret" }).click();
    await page.getByLabel("Secret name").fill("OPENAI_API_KEY");
    await page.getByLabel("Secret value").fill("sk-not-a-real-key");
    await page.screenshot({ path: join(DOCS, "dashboard-new.png") });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${cp.url}/view/${id}`);
    await page.locator(`tr[data-revision="${latest}"] .live`).waitFor();
    await page.screenshot({ path: join(DOCS, "dashboard-deployment-phone.png") });
    console.log(
      `Wrote ${["dashboard-deployments", "dashboard-deployment", "dashboard-new", "dashboard-deployment-phone"].map((n) => `docs/${n}.png`).join(", ")}`,
    );
  } finally {
    await browser.close();
    await cp.stop();
    repo.remove();
    rmSync(cp.dataDir, { recursive: true, force: true });
  }
}
