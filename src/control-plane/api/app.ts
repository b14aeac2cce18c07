// HTTP assembly of the control plane: the dashboard's pages, the X-Api-Key check, the /v2/deployments
// routes, the router to deployed servers, /ok and /openapi.json, and the one error handler. Starting
// a socket is the CLI's job.
import { Hono, type Context } from "hono";
import { requestId } from "hono/request-id";
import { GantryError } from "../../errors.js";
import type { Logger } from "../../logging.js";
import type { AppEnv } from "../../server/app-env.js";
import { errorHandler } from "../../server/errors.js";
import { bodyLimitMiddleware } from "../../server/body-limit.js";
import { buildOpenApi } from "../../server/openapi.js";
import { UI_BUILD_DIR } from "../../server/ui.js";
import { mountRoutes } from "../../server/route.js";
import { GANTRY_VERSION } from "../../version.js";
import type { ApiKeyCheck } from "../api-keys.js";
import type { DeploymentService } from "../deployments.js";
import type { Driver } from "../drivers/driver.js";
import { deploymentRouter } from "../router/proxy.js";
import type { ControlPlaneStore } from "../storage/ports.js";
import type { SourceUploads } from "../uploads/source-uploads.js";
import { mountDashboard } from "./dashboard.js";
import { legacyLogRoutes } from "./legacy-logs.js";
import { deploymentRoutes, KEY_TENANT, tenantOf } from "./routes.js";
import { mountSourceUploads } from "./source-upload-route.js";
import { DeploymentOut, RevisionOut } from "./schemas.js";

/** A deployment's fields, secrets included, come to a few kilobytes. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface ControlPlaneAppDeps {
  deployments: DeploymentService;
  store: ControlPlaneStore;
  driver: Driver;
  keys: ApiKeyCheck;
  checkPush: (deploymentId: string) => Promise<boolean>;
  /** Source archives of internal_source deployments (the official CLI's `deploy --remote`). */
  uploads: SourceUploads;
  /** Where the web pages' build is (ui/dist). */
  uiDir?: string;
  /** The public base URL, when configured; otherwise the request's own origin. */
  publicUrl?: string;
  /** What no custom_url may name besides the request's own host (routes.ts). */
  ownHostNames: readonly string[];
  log: Logger;
}

export function createControlPlaneApp(deps: ControlPlaneAppDeps): Hono<AppEnv> {
  const { log } = deps;
  const app = new Hono<AppEnv>();
  app.use(requestId());
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    log.debug("request", {
      request_id: c.get("requestId"),
      method: c.req.method,
      route: c.get("routePattern") ?? "unmatched",
      status: c.res.status,
      ms: Math.round(performance.now() - started),
    });
  });

  // First of all: on a deployment's custom host every path is the deployment's, /ok and /v2 included.
  const router = deploymentRouter({ store: deps.store, driver: deps.driver });
  app.use(async (c, next) => {
    const deployment = await router.forHost(c.req.header("host"));
    if (!deployment) return next();
    checkApiKey(deps.keys, c);
    return router.byHost(c, deployment, tenantOf(c));
  });

  app.get("/ok", (c) => c.json({ ok: true }));
  const baseUrl = (c: Context) => deps.publicUrl ?? new URL(c.req.url).origin;
  const routes = [
    ...deploymentRoutes({ deployments: deps.deployments, baseUrl, checkPush: deps.checkPush, uploads: deps.uploads, ownHostNames: deps.ownHostNames }),
    ...legacyLogRoutes(deps.deployments),
  ];
  app.get("/openapi.json", (c) =>
    c.json(
      buildOpenApi(routes, {
        version: GANTRY_VERSION,
        prefix: "",
        title: "Gantry control plane",
        description: "The LangSmith Deployment control plane API (/v2/deployments), served by Gantry.",
        components: { Deployment: DeploymentOut, Revision: RevisionOut },
      }),
    ),
  );

  // Before the key check: the pages hold no data, and a browser loads them without a key header.
  mountDashboard(app, { dir: deps.uiDir ?? UI_BUILD_DIR });
  // The official CLI prints this LangSmith page path as "View status" when --host-url is local.
  app.get("/o/:tenant_id/host/deployments/:deployment_id", (c) => c.redirect(`/view/${encodeURIComponent(c.req.param("deployment_id"))}`));
  // Its signed URL is the credential, and the archive has its own size limit.
  mountSourceUploads(app, { uploads: deps.uploads, deployments: deps.deployments });
  for (const prefix of ["/v2/*", "/v1/*"]) {
    app.use(prefix, requireApiKey(deps.keys));
    // The API's own bodies only: requests routed to a deployment meet that server's own limit.
    app.use(prefix, bodyLimitMiddleware(MAX_BODY_BYTES));
  }
  app.use("/deployments/*", requireApiKey(deps.keys));
  mountRoutes(app, routes, { validation: "list" });
  app.all("/deployments/:deployment_id", (c) => router.byPath(c, tenantOf(c)));
  app.all("/deployments/:deployment_id/*", (c) => router.byPath(c, tenantOf(c)));

  app.notFound((c) => c.json({ detail: `No route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError(errorHandler(log));
  return app;
}

/** 401 without a key, 403 with a wrong one; with no key configured (dev mode only) every call passes. */
function requireApiKey(keys: ApiKeyCheck) {
  return async function apiKey(c: Context, next: () => Promise<void>) {
    checkApiKey(keys, c);
    return next();
  };
}

/** A key bound to a tenant leaves that tenant on the request, for tenantOf() (routes.ts). */
function checkApiKey(keys: ApiKeyCheck, c: Context): void {
  if (keys.open()) return;
  const presented = c.req.header("x-api-key");
  if (!presented) throw new GantryError("unauthenticated", "Missing API key: send it in the X-Api-Key header.");
  const grant = keys.match(presented);
  if (!grant) throw new GantryError("forbidden", "Invalid API key.");
  if (grant.tenant) c.set(KEY_TENANT, grant.tenant);
}
