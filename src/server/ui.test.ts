import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../logging.js";
import type { AppEnv } from "./app-env.js";
import { errorHandler } from "./errors.js";
import { mountUi } from "./ui.js";

let built: string;
let missing: string;

beforeAll(async () => {
  built = await mkdtemp(join(tmpdir(), "gantry-ui-test-"));
  await mkdir(join(built, "assets"));
  await writeFile(join(built, "index.html"), '<!doctype html><html><head><script src="./assets/app-1a2b.js"></script></head></html>');
  await writeFile(join(built, "assets", "app-1a2b.js"), "console.log(1)");
  missing = join(built, "not-built");
});

afterAll(async () => {
  await rm(built, { recursive: true, force: true });
});

function appServing(dir: string, prefix = ""): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  mountUi(app, { dir, prefix });
  app.onError(errorHandler(silentLogger));
  if (!prefix) return app;
  const root = new Hono<AppEnv>();
  root.route(prefix, app);
  return root;
}

describe("the thread/run view's route group (/gantry)", () => {
  it("answers every page path with index.html, based at /gantry/", async () => {
    for (const path of ["/gantry", "/gantry/", "/gantry/threads/1b4e"]) {
      const response = await appServing(built).request(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain('<head><base href="/gantry/">');
    }
  });

  it("puts the mount prefix in the base", async () => {
    const response = await appServing(built, "/api").request("/api/gantry/threads");
    expect(await response.text()).toContain('<base href="/api/gantry/">');
  });

  it("serves hashed assets with their type, cached for good", async () => {
    const response = await appServing(built).request("/gantry/assets/app-1a2b.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toContain("immutable");
    expect(await response.text()).toBe("console.log(1)");
  });

  it("answers 404 with a detail for a file that is not there", async () => {
    const response = await appServing(built).request("/gantry/assets/gone.js");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "No UI file /assets/gone.js; if the UI was rebuilt, reload the page" });
  });

  it("never serves files outside the build output", async () => {
    const response = await appServing(join(built, "assets")).request("/gantry/%2e%2e/index.html");
    expect(response.status).toBe(404);
  });

  it("says to run the build when there is no build output", async () => {
    const response = await appServing(missing).request("/gantry/threads");
    expect(response.status).toBe(404);
    const body = (await response.json()) as { detail: string };
    expect(body.detail).toMatch(/The UI is not built .*run `npm run build`/);
  });

  it("sends the old bare /ui to the view, under the mount prefix", async () => {
    const response = await appServing(built, "/api").request("/api/ui");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/api/gantry/");
  });
});
