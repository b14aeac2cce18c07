// The control plane's web pages, from the same build as the Agent Server's thread/run view
// (ui/dist): the dashboard (dashboard.html) at / and its pages, and each deployment's thread/run
// view at /deployments/{id}/gantry/. These are files with no data in them, so they need no API key; the pages
// call the key-protected API (/v2, and the router for a deployment's own API) with the key the
// user enters. The thread/run view is served here rather than proxied so that a browser can load it
// without a key header, and so it never depends on what the deployed project serves there; the
// deployment's own /ui (generative UI) goes through the router like the rest of its API.
import { extname, resolve } from "node:path";
import type { Context, Hono } from "hono";
import { notFound } from "../../errors.js";
import { isUuid } from "../../ids.js";
import type { AppEnv } from "../../server/app-env.js";
import { serveUiFile, serveUiPage, VIEWER_PATH } from "../../server/ui.js";

/** The dashboard's page paths (ui/src/dashboard/routes.ts): the list, the create form, one deployment. */
const DASHBOARD_PAGES = ["/", "/new", "/view/*"];

export function mountDashboard(app: Hono<AppEnv>, options: { dir: string }): void {
  const dir = resolve(options.dir);
  const dashboard = (c: Context<AppEnv>) => {
    c.set("routePattern", "/");
    return serveUiPage(c, dir, "dashboard.html", "/");
  };
  for (const path of DASHBOARD_PAGES) app.get(path, dashboard);
  app.get("/assets/*", (c) => {
    c.set("routePattern", "/assets/*");
    return serveUiFile(c, dir, c.req.path);
  });

  const threadView = (c: Context<AppEnv>) => {
    c.set("routePattern", `/deployments/:deployment_id${VIEWER_PATH}/*`);
    const id = c.req.param("deployment_id") ?? "";
    if (!isUuid(id)) throw notFound(`Deployment ID ${id} not found.`);
    const base = `/deployments/${id}${VIEWER_PATH}`;
    const path = c.req.path.slice(base.length);
    if (extname(path) !== "") return serveUiFile(c, dir, path);
    return serveUiPage(c, dir, "index.html", `${base}/`);
  };
  app.get(`/deployments/:deployment_id${VIEWER_PATH}`, threadView);
  app.get(`/deployments/:deployment_id${VIEWER_PATH}/*`, threadView);
}
