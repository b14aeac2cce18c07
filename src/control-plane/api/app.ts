// HTTP assembly of the control plane: the X-Api-Key check, the /v2/deployments routes, the router
// to deployed servers, /ok and /openapi.json, and the one error handler. Starting a socket is the CLI's job.
import { Hono, type Context } from "hono";
import { requestId } from "hono/request-id";
import { GantryError } from "../../errors.js";
import type { Logger } from "../../logging.js";
import type { AppEnv } from "../../server/app-env.js";
import { errorHandler } from "../../server/errors.js";
import { buildOpenApi } from "../../server/openapi.js";
import { mountRoutes } from "../../server/route.js";
import { GANTRY_VERSION } from "../../version.js";
import type { ApiKeyCheck } from "../api-keys.js";
import type { DeploymentService } from "../deployments.js";
import type { Driver } from "../drivers/driver.js";
import { deploymentProxy } from "../router/proxy.js";
import type { ControlPlaneStore } from "../storage/ports.js";
import { deploymentRoutes } from "./routes.js";
import { DeploymentOut, RevisionOut } from "./schemas.js";

export interface ControlPlaneAppDeps {
  deployments: DeploymentService;
  store: ControlPlaneStore;
  driver: Driver;
  keys: ApiKeyCheck;
  checkPush: (deploymentId: string) => Promise<boolean>;
  /** The public base URL, when configured; otherwise the request's own origin. */
  publicUrl?: string;
  log: Logger;
}

export function createControlPlaneApp(deps: ControlPlaneAppDeps): Hono<AppEnv> {
  const { log } = deps;
  const app = new Hono<AppEnv>();
  app.use(requestId());
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    log.debug("request", { request_id: c.get("requestId"), method: c.req.method, route: c.get("routePattern") ?? "unmatched", status: c.res.status, ms: Math.round(performance.now() - started) });
  });

  app.get("/ok", (c) => c.json({ ok: true }));
  const baseUrl = (c: Context) => deps.publicUrl ?? new URL(c.req.url).origin;
  const routes = deploymentRoutes({ deployments: deps.deployments, baseUrl, checkPush: deps.checkPush });
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

  app.use("/v2/*", requireApiKey(deps.keys));
  app.use("/deployments/*", requireApiKey(deps.keys));
  mountRoutes(app, routes, { validation: "list" });
  const proxy = deploymentProxy({ store: deps.store, driver: deps.driver });
  app.all("/deployments/:deployment_id", proxy);
  app.all("/deployments/:deployment_id/*", proxy);

  app.notFound((c) => c.json({ detail: `No route for ${c.req.method} ${c.req.path}` }, 404));
  app.onError(errorHandler(log));
  return app;
}

/** 401 without a key, 403 with a wrong one; with no key configured (dev mode only) every call passes. */
function requireApiKey(keys: ApiKeyCheck) {
  return async function apiKey(c: Context, next: () => Promise<void>) {
    if (!keys.configured) return next();
    const presented = c.req.header("x-api-key");
    if (!presented) throw new GantryError("unauthenticated", "Missing API key: send it in the X-Api-Key header.");
    if (!keys.matches(presented)) throw new GantryError("forbidden", "Invalid API key.");
    return next();
  };
}
