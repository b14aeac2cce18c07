// Generative UI end to end: a real `gantry dev` (under a mount prefix) on the fixture project (test/fixtures/generative-ui:
// a graph that pushes a `weather` card, its `ui` entry, and a `ui_config.shared` module), and a page
// built here by Vite with React 19 and the official SDK, served from another origin, in a real
// headless Chromium: useStream runs the graph, and LoadExternalComponent loads the card from Gantry.
// Then the /ui routes over HTTP, and the rebuild `gantry dev` does when the component changes.
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import type { Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../e2e/fixture-paths.js";
import { describeWithChromium, launchBrowser, type Browser } from "../support/browser.js";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";

const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const SHOWN_WITHIN_MS = 20_000;
const REBUILT_WITHIN_MS = 30_000;
const PREFIX = "/agents";

let project: string;
let server: RunningGantry;

beforeAll(async () => {
  // A copy, so the rebuild test can edit the component; the graph resolves its packages from ours.
  project = await mkdtemp(join(tmpdir(), "gantry-generative-ui-"));
  await cp(fixture("generative-ui"), project, { recursive: true });
  await symlink(join(REPO_ROOT, "node_modules"), join(project, "node_modules"));
  // Under a mount prefix, which the asset URLs must carry; without one the prefix is just "".
  server = await startGantry({ config: join(project, "langgraph.json"), env: { MOUNT_PREFIX: PREFIX }, startDeadlineMs: 90_000 });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

describeWithChromium(
  "generative UI in the browser",
  () => {
    let pageDir: string;
    let pageServer: Server;
    let pageUrl: string;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      pageDir = await mkdtemp(join(tmpdir(), "gantry-generative-ui-page-"));
      await build({ root: join(project, "page"), base: "./", configFile: false, logLevel: "error", build: { outDir: pageDir, emptyOutDir: true } });
      pageServer = await serveDir(pageDir);
      pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
      browser = await launchBrowser();
      page = await browser.context.newPage();
      page.setDefaultTimeout(SHOWN_WITHIN_MS);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((done) => pageServer?.close(done));
      if (pageDir) await rm(pageDir, { recursive: true, force: true });
    });

    it("streams a run and renders the card it pushes through LoadExternalComponent, with its CSS and the page's shared module", async () => {
      const errors: string[] = [];
      page.on("pageerror", (err) => errors.push(err.message));
      await page.goto(`${pageUrl}/index.html?api=${encodeURIComponent(server.url)}`);
      // Locators pierce the open shadow root LoadExternalComponent renders into.
      const card = page.locator(".weather-card");
      await card.getByText("Weather in Paris").waitFor();
      expect(await card.getByText("Sunny all day in Paris").count()).toBe(1);
      expect(await card.evaluate((el) => getComputedStyle(el).color)).toBe("rgb(12, 34, 56)");
      expect(await card.evaluate((el) => el.getRootNode() instanceof ShadowRoot)).toBe(true);
      await page.locator("#status").getByText("done").waitFor();
      expect(errors).toEqual([]);
    });
  },
  { timeout: 120_000 },
);

describe("generative UI over the API", () => {
  it("carries the pushed card on the custom stream mode and keeps it in the ui state key", async () => {
    const client = new Client({ apiUrl: server.url });
    const thread = await client.threads.create();
    const custom: unknown[] = [];
    for await (const chunk of client.runs.stream(thread.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "Oslo" }] },
      streamMode: ["custom"],
    })) {
      if (chunk.event === "custom") custom.push(chunk.data);
    }
    const card = { type: "ui", name: "weather", props: { city: "Oslo" } };
    expect(custom).toEqual([expect.objectContaining(card)]);
    const pushed = custom[0] as { id: string; metadata: { id?: string } };
    const state = (await client.threads.getState(thread.thread_id)).values as { ui: unknown[]; messages: { id: string }[] };
    expect(state.ui).toEqual([expect.objectContaining({ ...card, id: pushed.id })]);
    // Attached to the message it came with, as LoadExternalComponent's callers group them.
    expect(pushed.metadata.id).toBe(state.messages.at(-1)!.id);
  });

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("answers POST /ui/{assistant_id} with the stylesheet and the script that renders the named component", async () => {
    const response = await post("/ui/agent", { name: "weather" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    const { host } = new URL(server.url);
    expect(new URL(server.url).pathname).toBe(PREFIX);
    expect(html).toContain(`<link rel="stylesheet" href="http://${host}${PREFIX}/ui/agent/entrypoint.css" />`);
    expect(html).toContain(
      `<script src="http://${host}${PREFIX}/ui/agent/entrypoint.js" onload='__LGUI_agent.render("weather", "{{shadowRootId}}")'></script>`,
    );

    const script = await fetch(`http://${host}${PREFIX}/ui/agent/entrypoint.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const code = await script.text();
    expect(code).toContain("var __LGUI_agent");
    // Shared and React modules come from the page, not the bundle.
    expect(code).not.toContain("Sunny all day");
    expect(code).toContain("@gantry-test/greeting");
  });

  // The reference's "generative ui": a `ui` entry under a name that is no graph id (an alias) has
  // its own bundle, global and fragment, as the official server writes it.
  it("generative ui: the fragment for an alias loads /ui/<alias>/entrypoint.js and calls __LGUI_<alias>.render", async () => {
    const client = new Client({ apiUrl: server.url });
    const { host } = new URL(server.url);
    const ui = await client["~ui"].getComponent("agent-alias", "weather-component");
    expect(ui).toContain(
      `<script src="http://${host}${PREFIX}/ui/agent-alias/entrypoint.js" onload='__LGUI_agent_alias.render("weather-component", "{{shadowRootId}}")'></script>`,
    );
    const src = /src="(?<src>[^"]+)"/.exec(ui)?.groups?.src;
    expect(src).toBe(`http://${host}${PREFIX}/ui/agent-alias/entrypoint.js`);
    expect(await (await fetch(src!)).text()).toContain("var __LGUI_agent_alias");
    await expect(client["~ui"].getComponent("non-existent", "none")).rejects.toThrow(/HTTP 404/);
  });

  it("a component name with quotes stays inside the onload attribute", async () => {
    const html = await (await post("/ui/agent", { name: `it's "here" & <there>` })).text();
    expect(html).toContain(`onload='__LGUI_agent.render("it&#39;s \\"here\\" &amp; &lt;there&gt;", "{{shadowRootId}}")'`);
  });

  it("finds the graph from an assistant's ID too", async () => {
    const assistants = (await (await post("/assistants/search", { graph_id: "agent" })).json()) as { assistant_id: string }[];
    const response = await post(`/ui/${assistants[0]!.assistant_id}`, { name: "weather" });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`${PREFIX}/ui/agent/entrypoint.js`);
  });

  it("answers 404 with a detail for an unknown graph, assistant or file, and 422 without a component name", async () => {
    const unknown = await post("/ui/nobody", { name: "weather" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: "No generative UI for graph 'nobody': langgraph.json's ui has no entry for it" });
    const noAssistant = await post("/ui/00000000-0000-4000-8000-000000000000", { name: "weather" });
    expect(noAssistant.status).toBe(404);
    expect(((await noAssistant.json()) as { detail: string }).detail).toContain("00000000-0000-4000-8000-000000000000");
    const missing = await fetch(`${server.url}/ui/agent/other.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "No generative UI file 'other.js' for graph 'agent'" });
    const nameless = await post("/ui/agent", {});
    expect(nameless.status).toBe(422);
    expect(((await nameless.json()) as { detail: string }).detail).toContain("name");
  });

  it("rebuilds the component when its file changes under gantry dev", async () => {
    const file = join(project, "src", "agent", "ui.jsx");
    await writeFile(file, (await readFile(file, "utf8")).replace("Weather in", "Forecast for"));
    const deadline = Date.now() + REBUILT_WITHIN_MS;
    let code = "";
    while (Date.now() < deadline) {
      code = await (await fetch(`${server.url}/ui/agent/entrypoint.js`)).text();
      if (code.includes("Forecast for")) break;
      await new Promise((done) => setTimeout(done, 250));
    }
    expect(code).toContain("Forecast for");
    expect(code).not.toContain("Weather in");
  });
});

const CONTENT_TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** The built page, from an origin of its own (a client app is rarely served by its API server). */
function serveDir(dir: string): Promise<Server> {
  const httpServer = createServer((request, response) => {
    const path = resolve(dir, "." + new URL(request.url ?? "/", "http://page").pathname);
    if (!path.startsWith(dir)) return void response.writeHead(404).end();
    readFile(path).then(
      (data) => response.writeHead(200, { "content-type": CONTENT_TYPES[extname(path)] ?? "application/octet-stream" }).end(data),
      () => response.writeHead(404).end(),
    );
  });
  return new Promise((done) => httpServer.listen(0, "127.0.0.1", () => done(httpServer)));
}
