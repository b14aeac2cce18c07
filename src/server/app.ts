// HTTP assembly: middleware, the user's own routes, our routes, and the one error handler.
// Returns a Hono app; starting a socket is the CLI's job.
import { Hono } from "hono";
import type { ServerConfig } from "../config/server-config.js";
import type { AssistantService } from "../domain/assistants.js";
import type { CronService } from "../domain/crons.js";
import type { RunService } from "../domain/runs.js";
import type { StoreService } from "../domain/store.js";
import type { ThreadStateService } from "../domain/thread-state.js";
import type { ThreadService } from "../domain/threads.js";
import type { RunOutputService } from "../domain/run-output.js";
import type { Logger } from "../logging.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import type { TypedSchemaSource } from "../runtime/typed-schemas/typed-schema-source.js";
import type { AppEnv } from "./app-env.js";
import type { AuthenticateHook, AuthHooks } from "../auth/load-auth.js";
import { authMiddleware, OPEN_PATHS } from "./auth-middleware.js";
import { bodyLimitMiddleware } from "./body-limit.js";
import { corsMiddleware } from "./cors.js";
import { requestIdMiddleware } from "./request-id.js";
import { openApiSecurity } from "./openapi.js";
import { errorHandler } from "./errors.js";
import { createMetrics, type MetricsSource } from "./metrics.js";
import type { Otel } from "../observe/otel.js";
import type { RunMetrics } from "../observe/run-metrics.js";
import { requestSpans } from "./request-spans.js";
import { mountRoutes, type RouteSpec } from "./route.js";
import { a2aService } from "../a2a/a2a-service.js";
import { a2aRoutes } from "./routes/a2a.js";
import { assistantRoutes } from "./routes/assistants.js";
import { cronRoutes } from "./routes/crons.js";
import { healthRoute, metaRoutes, type DatabaseHealth, type HealthProbe } from "./routes/meta.js";
import { mcpRoutes } from "./routes/mcp.js";
import { runRoutes } from "./routes/runs.js";
import { storeRoutes } from "./routes/store.js";
import { threadStateRoutes } from "./routes/thread-state.js";
import { threadStreamRoutes } from "./routes/thread-stream.js";
import { protocolRoutes } from "./routes/protocol.js";
import type { ProtocolService } from "../protocol/service.js";
import { threadRoutes } from "./routes/threads.js";
import { mountUi, UI_BUILD_DIR } from "./ui.js";
import type { GenerativeUiFiles } from "../generative-ui/generative-ui.js";
import { generativeUiRoutes } from "./routes/generative-ui.js";
import { mountUserApp, type UserApp } from "./user-app.js";
import type { Loopback } from "./loopback.js";
import { protocolWebSocketRoutes } from "./routes/protocol-websocket.js";

export type { HealthProbe };

export interface AppDeps {
  config: ServerConfig;
  storage: DatabaseHealth;
  graphs: GraphRegistry;
  /** Schemas of TypeScript-typed graphs for the assistant routes; without it they list channels untyped. */
  typedSchemas?: TypedSchemaSource;
  assistants: AssistantService;
  threads: ThreadService;
  state: ThreadStateService;
  runs: RunService;
  crons: CronService;
  store: StoreService;
  output: RunOutputService;
  /** The thread-centric protocol (v2); its routes need both threads and runs enabled. */
  protocol?: ProtocolService;
  log: Logger;
  /** Services /ok checks besides the database (Redis under `gantry serve`). */
  probes?: HealthProbe[];
  /** Counters from outside HTTP (webhook deliveries) shown on /metrics. */
  metricsSources?: MetricsSource[];
  /** The project's custom auth (langgraph.json `auth`); absent, every request is let through unchecked. */
  auth?: AuthHooks & { authenticate: AuthenticateHook };
  /** The built components of langgraph.json's `ui` entries, served under /ui. */
  generativeUi?: GenerativeUiFiles;
  /** The thread/run view's build output, served at /gantry; ui/dist by default. */
  uiDir?: string;
  /** Run and stream figures for /metrics (its queue and worker figures render there too). */
  runMetrics?: RunMetrics;
  /** OpenTelemetry, when configured: a span per request. */
  otel?: Otel;
  /** The user's `http.app` (a Hono app or anything with `fetch`), ahead of our routes (user-app.ts). */
  userApp?: UserApp;
  /** Lets the user's routes call this server through the SDK's Client as themselves (loopback.ts). */
  loopback?: Loopback;
}

export function createApp(deps: AppDeps): { app: Hono; routes: RouteSpec[] } {
  const { config, log } = deps;
  const http = config.project.http;
  const metrics = createMetrics(deps.metricsSources);
  const api = new Hono<AppEnv>();

  api.use(requestIdMiddleware());
  if (deps.otel) api.use(requestSpans(deps.otel));
  if (deps.runMetrics) {
    const { runMetrics } = deps;
    api.use(async (c, next) => {
      c.set("streamOpened", runMetrics.streamOpened);
      await next();
    });
  }
  api.use(async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = c.get("routePattern") ?? (c.req.method === "OPTIONS" ? "preflight" : "unmatched");
    metrics.observe(c.req.method, route, c.res.status, seconds);
    log.debug("request", { request_id: c.get("requestId"), method: c.req.method, route, status: c.res.status, ms: Math.round(seconds * 1000) });
  });
  api.use(corsMiddleware(http, config.corsAllowOrigins));
  api.use(bodyLimitMiddleware(config.maxBodyBytes, "HTTP_MAX_REQUEST_BODY_BYTES"));
  // The user's routes are open unless http.enable_custom_route_auth says otherwise (as on the platform).
  const authenticate = deps.auth ? authMiddleware(deps.auth, { prefix: config.mountPrefix, log, openUi: !http.disable_ui }) : undefined;
  if (authenticate && http.enable_custom_route_auth) api.use(authenticate);
  if (deps.userApp) mountUserApp(api, deps.userApp, { prefix: config.mountPrefix, ...(deps.loopback ? { loopback: deps.loopback } : {}) });

  if (authenticate && !http.enable_custom_route_auth) api.use(authenticate);

  const routes: RouteSpec[] = [healthRoute({ storage: deps.storage, ...(deps.probes ? { probes: deps.probes } : {}) })];
  if (!http.disable_assistants) {
    routes.push(...assistantRoutes({ assistants: deps.assistants, graphs: deps.graphs, ...(deps.typedSchemas ? { typedSchemas: deps.typedSchemas } : {}) }));
  }
  if (!http.disable_threads) routes.push(...threadRoutes({ threads: deps.threads }), ...threadStateRoutes({ state: deps.state }));
  if (!http.disable_threads) routes.push(...threadStreamRoutes({ threads: deps.threads, output: deps.output }));
  if (!http.disable_runs) routes.push(...runRoutes({ runs: deps.runs, output: deps.output, prefix: config.mountPrefix }));
  if (!http.disable_runs) routes.push(...cronRoutes({ crons: deps.crons }));
  if (deps.protocol && !http.disable_threads && !http.disable_runs) routes.push(...protocolRoutes({ protocol: deps.protocol, log }));
  // The same protocol on a WebSocket: GET /threads/{id}/stream/events with Upgrade (websocket-upgrade.ts).
  if (deps.protocol && !http.disable_threads && !http.disable_runs) {
    routes.push(...protocolWebSocketRoutes({ protocol: deps.protocol, pingMs: config.websocketPingMs, log }));
  }
  if (!http.disable_store) routes.push(...storeRoutes({ store: deps.store }));
  if (!http.disable_a2a) {
    const a2a = a2aService({ assistants: deps.assistants, runs: deps.runs, output: deps.output, graphs: deps.graphs });
    routes.push(...a2aRoutes({ a2a, prefix: config.mountPrefix, log }));
  }
  if (!http.disable_mcp) {
    routes.push(
      ...mcpRoutes({
        assistants: deps.assistants,
        runs: deps.runs,
        output: deps.output,
        graphs: deps.graphs,
        log,
        ...(deps.typedSchemas ? { typedSchemas: deps.typedSchemas } : {}),
      }),
    );
  }
  if (!http.disable_ui && deps.generativeUi) {
    routes.push(...generativeUiRoutes({ ui: deps.generativeUi, assistants: deps.assistants, prefix: config.mountPrefix }));
  }
  if (!http.disable_meta) {
    routes.push(
      ...metaRoutes({
        storage: deps.storage,
        metrics,
        prefix: config.mountPrefix,
        capabilities: {
          assistants: !http.disable_assistants,
          threads: !http.disable_threads,
          runs: !http.disable_runs,
          crons: !http.disable_runs,
          store: !http.disable_store,
        },
        allRoutes: () => routes,
        langsmith: config.observe.langsmith,
        ...(deps.auth ? { security: openApiSecurity(config.project.raw.auth?.openapi, OPEN_PATHS) } : {}),
      }),
    );
  }
  mountRoutes(api, routes, { log });
  // After the middleware like any route group; custom auth lets its GETs through (auth-middleware.ts).
  if (!http.disable_ui) mountUi(api, { dir: deps.uiDir ?? UI_BUILD_DIR, prefix: config.mountPrefix });

  api.notFound((c) => c.json({ detail: `No route for ${c.req.method} ${c.req.path}` }, 404));
  api.onError(errorHandler(log));

  if (!config.mountPrefix) return { app: api as unknown as Hono, routes };
  const root = new Hono();
  root.route(config.mountPrefix, api);
  root.notFound((c) => c.json({ detail: `No route for ${c.req.method} ${c.req.path} (routes are under ${config.mountPrefix})` }, 404));
  return { app: root, routes };
}
