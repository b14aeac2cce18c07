// The control plane's dashboard at / in a real headless Chromium, on a real `gantry control-plane`
// building a local bare git repository: what a user clicks, and what the API says happened.
import { Client } from "@langchain/langgraph-sdk";
import { rmSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  API_KEY,
  api,
  controlPlaneDataDir,
  createFixtureRepo,
  waitFor,
  type Api,
  type FixtureRepo,
  type RunningControlPlane,
  startControlPlane,
} from "../control-plane/support.js";
import { describeWithChromium, expectFitsPhoneWidth, expectPanelBesideHeadings, launchBrowser, requireUiBuild, type Browser } from "../support/browser.js";

// Waits are for things the page shows; the deadlines only bound a failure (a build and a health
// check take a few seconds, more on a loaded machine).
const SHOWN_WITHIN_MS = 15_000;
const DEPLOYED_WITHIN_MS = 90_000;
const SECRET_VALUE = "dashboard-secret-" + Math.random().toString(36).slice(2);

describeWithChromium(
  "the control plane's dashboard",
  () => {
    let repo: FixtureRepo;
    let cp: RunningControlPlane;
    let client: Api;
    let browser: Browser;
    let page: Page;
    let deploymentId: string;
    let firstRevision: string;
    /** Every API request the page made, with whether it carried the key. */
    const calls: { url: string; key: string | undefined }[] = [];

    const open = (path: string) => page.goto(`${cp.url}/${path}`);
    const shown = (selector: string, text: string | RegExp) => page.locator(selector).filter({ hasText: text }).first().waitFor();
    const revisionRow = (id: string) => page.locator(`tr[data-revision="${id}"]`);
    const ask = async (input: string) =>
      (await new Client({ apiUrl: `${cp.url}/deployments/${deploymentId}`, apiKey: API_KEY }).runs.wait(null, "agent", { input: { input } })) as {
        reply: string;
        secret: string;
      };

    beforeAll(async () => {
      requireUiBuild("dashboard.html");
      repo = createFixtureRepo();
      repo.commit("v1");
      cp = await startControlPlane(controlPlaneDataDir());
      client = api(cp.url);
      browser = await launchBrowser();
      page = await browser.context.newPage();
      page.setDefaultTimeout(SHOWN_WITHIN_MS);
      page.on("request", (r) => {
        if (new URL(r.url()).pathname.startsWith("/v2/")) calls.push({ url: r.url(), key: r.headers()["x-api-key"] });
      });
    });

    afterAll(async () => {
      await browser?.close();
      await cp?.stop();
      repo?.remove();
      if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
    });

    it("serves the page without a key, and shows the API's 401 until the key is entered", async () => {
      await open("");
      await shown(".error", /HTTP 401: Missing API key/);
      await page.getByLabel("API key (X-Api-Key)").fill(API_KEY);
      await page.getByRole("button", { name: "Save for this tab" }).click();
      await shown("p.muted", "No deployments yet.");
      expect(calls.at(-1)?.key).toBe(API_KEY);
      calls.length = 0;
    });

    it("on a phone's first visit, opens the key panel on the screen beside the headings and takes the key", async () => {
      const phone = await browser.context.newPage();
      phone.setDefaultTimeout(SHOWN_WITHIN_MS);
      try {
        await phone.setViewportSize({ width: 390, height: 844 });
        await phone.goto(cp.url);
        await phone.locator(".error").filter({ hasText: "HTTP 401" }).first().waitFor();
        const form = phone.locator("details.auth form");
        await form.waitFor();
        await expectPanelBesideHeadings(phone, form, [phone.locator("header.top h1"), phone.getByRole("heading", { name: "Deployments" })]);
        await phone.getByLabel("API key (X-Api-Key)").fill(API_KEY);
        await phone.getByRole("button", { name: "Save for this tab" }).click();
        await phone.locator("p.muted").filter({ hasText: "No deployments yet." }).first().waitFor();
      } finally {
        await phone.close();
      }
    });

    it("serves only the pages without a key: each deployment's API still needs one", async () => {
      const id = "01234567-89ab-4def-8123-456789abcdef";
      const view = await fetch(`${cp.url}/deployments/${id}/gantry/threads`);
      expect(view.status).toBe(200);
      expect(await view.text()).toContain(`<base href="/deployments/${id}/gantry/">`);
      expect((await fetch(`${cp.url}/view/${id}`)).headers.get("content-type")).toMatch(/^text\/html/);
      expect((await fetch(`${cp.url}/deployments/${id}/ok`)).status).toBe(401);
      expect((await fetch(`${cp.url}/v2/deployments`)).status).toBe(401);
    });

    it("shows a 422's list of problems readably", async () => {
      await page.getByRole("link", { name: "New deployment" }).first().click();
      await page.getByLabel("Name").fill("9-starts-with-a-digit");
      await page.getByLabel("Repository URL").fill(repo.url);
      await page.getByRole("button", { name: "Create deployment" }).click();
      await shown(".error", /HTTP 422: name: must start with a letter/);
    });

    it("creates a deployment through the form and shows its revision reach DEPLOYED", async () => {
      await page.getByLabel("Name").fill("dash-agent");
      await page.getByRole("button", { name: "Add secret" }).click();
      await page.getByLabel("Secret name").fill("FIXTURE_SECRET");
      await page.getByLabel("Secret value").fill(SECRET_VALUE);
      await page.getByRole("button", { name: "Create deployment" }).click();
      await page.waitForURL(/\/view\/[0-9a-f-]{36}$/);
      deploymentId = new URL(page.url()).pathname.split("/").pop()!;

      const { body: deployment } = await client.call("GET", `/v2/deployments/${deploymentId}`);
      expect(deployment).toMatchObject({ name: "dash-agent", secrets: [{ name: "FIXTURE_SECRET", value: "********" }] });
      firstRevision = deployment.latest_revision_id;
      await revisionRow(firstRevision).locator(".status", { hasText: "DEPLOYED" }).waitFor({ timeout: DEPLOYED_WITHIN_MS });
      await shown('[aria-label="URL"]', `${cp.url}/deployments/${deploymentId}`);
      expect(await ask("hello")).toMatchObject({ reply: "v1:hello", secret: SECRET_VALUE });
      expect(calls.every((c) => c.key === API_KEY)).toBe(true);
    });

    it("opens a revision's build and deploy logs", async () => {
      await revisionRow(firstRevision).getByRole("link", { name: "Logs" }).click();
      await shown('[aria-label="build log"]', /Resolving main in/);
      await shown('[aria-label="build log"]', /Importing the graphs of langgraph\.json/);
      await page.getByRole("tab", { name: "Deploy log" }).click();
      await shown('[aria-label="deploy log"]', /Healthy: GET .*\/ok answered 200/);
    });

    it("opens the deployment's thread/run view through the router, calling its API with the key", async () => {
      const routed: string[] = [];
      const onRequest = (r: { url(): string; headers(): Record<string, string> }) => {
        if (r.url().includes(`/deployments/${deploymentId}/`) && r.headers()["x-api-key"] === API_KEY) routed.push(new URL(r.url()).pathname);
      };
      page.on("request", onRequest);
      try {
        await page.getByRole("link", { name: "Threads and runs" }).click();
        await page.waitForURL(`${cp.url}/deployments/${deploymentId}/gantry/`);
        await page.locator('.graph [data-node="__start__"]').waitFor();
        expect(routed).toContain(`/deployments/${deploymentId}/assistants/search`);
      } finally {
        page.off("request", onRequest);
      }
    });

    it("makes a new revision from the edit form, then rolls back by redeploying the first one", async () => {
      repo.commit("v2");
      await open(`view/${deploymentId}`);
      const edit = page.getByRole("region", { name: "New revision" });
      await edit.getByLabel("Secret value").fill(SECRET_VALUE + "-2");
      await edit.getByRole("button", { name: "Save and deploy" }).click();
      const second = await waitFor("a second revision", async () => {
        const { body } = await client.call("GET", `/v2/deployments/${deploymentId}`);
        return body.latest_revision_id !== firstRevision ? (body.latest_revision_id as string) : undefined;
      });
      await revisionRow(second).locator(".status", { hasText: "DEPLOYED" }).waitFor({ timeout: DEPLOYED_WITHIN_MS });
      await revisionRow(second).locator(".live").waitFor();
      expect(await ask("new")).toMatchObject({ reply: "v2:new", secret: SECRET_VALUE + "-2" });
      expect(await page.locator("tr[data-revision]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-revision")))).toEqual([second, firstRevision]);

      await revisionRow(firstRevision).getByRole("button", { name: "Redeploy this revision" }).click();
      const third = await waitFor("the rollback revision", async () => {
        const { body } = await client.call("GET", `/v2/deployments/${deploymentId}`);
        return body.latest_revision_id !== second ? (body.latest_revision_id as string) : undefined;
      });
      await revisionRow(third).locator(".live").waitFor({ timeout: DEPLOYED_WITHIN_MS });
      await expect.poll(() => revisionRow(third).locator(".status").textContent()).toBe("DEPLOYED");
      expect(await ask("back")).toMatchObject({ reply: "v1:back", secret: SECRET_VALUE });
    });

    it("fits a phone's width without sideways scrolling", async () => {
      await expectFitsPhoneWidth(page, open, ["", "new", `view/${deploymentId}`]);
    });

    it("deletes the deployment after a confirmation", async () => {
      await open(`view/${deploymentId}`);
      await page.getByRole("button", { name: "Delete deployment" }).click();
      await page.getByRole("alertdialog", { name: "Confirm delete" }).waitFor();
      await page.getByRole("button", { name: "Yes, delete dash-agent" }).click();
      await page.waitForURL(`${cp.url}/`);
      await waitFor("the deployment to be gone", async () => ((await client.call("GET", `/v2/deployments/${deploymentId}`)).status === 404 ? true : undefined));
      await shown("p.muted", "No deployments yet.");
    });
  },
  { timeout: 180_000 },
);
