// Meta routes: health, server info, metrics, and the API description (spec §1.7).
import { GANTRY_VERSION, langgraphVersion } from "../../version.js";
import type { Metrics } from "../metrics.js";
import { buildOpenApi, renderDocsPage, type OpenApiSecurity } from "../openapi.js";
import { route, type RouteSpec } from "../route.js";
import { z } from "zod";
import { optional } from "../schemas/common.js";
import { queryBool } from "../validation.js";

const TAG = "System";

export interface Capabilities {
  assistants: boolean;
  threads: boolean;
  runs: boolean;
  crons: boolean;
  store: boolean;
}

/** The database as health checks and /info see it (the storage, structurally). */
export interface DatabaseHealth {
  backend: "sqlite" | "postgres";
  ping(): Promise<boolean>;
}

/** A service the server needs besides its database (Redis under `gantry serve`). */
export interface HealthProbe {
  /** Its key under `services`. */
  name: string;
  /** How the 503 detail names it. */
  label: string;
  ping(): Promise<boolean>;
}

/**
 * With probes (`gantry serve`) every call asks the database and each probe, and answers 503 with a
 * detail naming what is unreachable, so a load balancer takes the replica out until it reconnects.
 * Without (`gantry dev`) only check_db=1 asks the database, and a failure answers 500.
 */
export async function healthResponse(
  storage: DatabaseHealth,
  probes: HealthProbe[],
  checkDb: boolean,
): Promise<{ body: Record<string, unknown>; status: 200 | 500 | 503 }> {
  if (!checkDb && probes.length === 0) return { body: { ok: true }, status: 200 };
  const database: HealthProbe = { name: "database", label: storage.backend === "postgres" ? "PostgreSQL" : "SQLite", ping: () => storage.ping() };
  const checks = [database, ...probes];
  const results = await Promise.all(checks.map(async (probe) => ({ probe, up: await withinDeadline(probe.ping()) })));
  const services = Object.fromEntries(results.map(({ probe, up }) => [probe.name, up ? "ok" : "unreachable"]));
  const down = results.filter(({ up }) => !up).map(({ probe }) => probe.label);
  if (down.length === 0) return { body: { ok: true, services }, status: 200 };
  if (probes.length === 0) return { body: { ok: false, services }, status: 500 };
  return { body: { ok: false, detail: `Unhealthy: cannot reach ${down.join(" and ")}`, services }, status: 503 };
}

// A service that neither answers nor refuses (a network partition) counts as down, not as a hang.
const PROBE_DEADLINE_MS = 3_000;

async function withinDeadline(ping: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), PROBE_DEADLINE_MS)));
  try {
    return await Promise.race([ping.catch(() => false), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoute({ storage, probes = [] }: { storage: DatabaseHealth; probes?: HealthProbe[] }): RouteSpec {
  return route({
    method: "get",
    path: "/ok",
    tag: TAG,
    summary: "Health check; with check_db=1 the database is asked too (always, under gantry serve, with Redis)",
    query: z.object({ check_db: optional(queryBool) }).strict(),
    responses: { 200: "Healthy", 500: "The database cannot be reached", 503: "gantry serve: the database or Redis cannot be reached" },
    handler: async (c, { query }) => {
      const { body, status } = await healthResponse(storage, probes, query.check_db === true || probes.length > 0);
      return c.json(body, status);
    },
  });
}

export function metaRoutes(deps: {
  storage: DatabaseHealth;
  metrics: Metrics;
  capabilities: Capabilities;
  prefix: string;
  allRoutes: () => RouteSpec[];
  /** Set when custom auth protects the API. */
  security?: OpenApiSecurity;
  /** Runs are traced to LangSmith (LANGSMITH_TRACING and a key). */
  langsmith?: boolean;
}): RouteSpec[] {
  const info = { version: GANTRY_VERSION, prefix: deps.prefix, ...(deps.security ? { security: deps.security } : {}) };
  return [
    route({
      method: "get",
      path: "/info",
      tag: TAG,
      summary: "Server version and the capabilities it has on",
      responses: { 200: "Server info" },
      handler: (c) =>
        c.json({
          version: GANTRY_VERSION,
          langgraph_js_version: langgraphVersion(),
          context: "js",
          // strict_resume: the flag the SDK's `strictResume` docs point to (named like its `stream_namespaces`).
          flags: { ...deps.capabilities, langsmith: deps.langsmith === true, langsmith_tracing_replicas: false, strict_resume: deps.capabilities.runs },
          metadata: { server: "gantry", storage: deps.storage.backend },
        }),
    }),
    route({
      method: "get",
      path: "/metrics",
      tag: TAG,
      summary: "Request counts and latencies (Prometheus text, or format=json)",
      query: z.object({ format: optional(z.enum(["prometheus", "json"])) }).strict(),
      responses: { 200: "Metrics" },
      handler: async (c, { query }) =>
        query.format === "json"
          ? c.json(await deps.metrics.json())
          : c.text(await deps.metrics.prometheus(), 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" }),
    }),
    route({
      method: "get",
      path: "/openapi.json",
      tag: TAG,
      summary: "OpenAPI description of every route this server answers",
      responses: { 200: "OpenAPI 3.1 document" },
      handler: (c) => c.json(buildOpenApi(deps.allRoutes(), info)),
    }),
    route({
      method: "get",
      path: "/docs",
      tag: TAG,
      summary: "Human-readable API reference",
      responses: { 200: "HTML page" },
      handler: (c) => c.html(renderDocsPage(deps.allRoutes(), info)),
    }),
    route({
      method: "get",
      path: "/",
      tag: TAG,
      summary: "Redirects to /docs",
      responses: { 302: "Redirect" },
      handler: (c) => c.redirect(`${deps.prefix}/docs`, 302),
    }),
  ];
}
