// Meta routes: health, server info, metrics, and the API description (spec §1.7).
import { GANTRY_VERSION, langgraphVersion } from "../../version.js";
import type { Metrics } from "../metrics.js";
import { buildOpenApi, renderDocsPage, type OpenApiSecurity } from "../openapi.js";
import { route, type RouteSpec } from "../route.js";
import { z } from "zod";
import { optional } from "../schemas/common.js";
import { queryBool } from "../validation.js";
import { retryAfter } from "../errors.js";

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

export interface HealthAnswer {
  body: Record<string, unknown>;
  status: 200 | 500 | 503;
  headers?: Record<string, string>;
}

/**
 * `/ok` answers two questions, as the official servers do. Without check_db it is liveness: the
 * process answers, so it is alive; nothing else is asked, and an orchestrator's liveness probe never
 * restarts a replica because PostgreSQL or Redis is away (every replica shares them: restarting them
 * all would not bring either back). With check_db=1 it is readiness: the database and each probe
 * (Redis under `gantry serve`) are asked, and a 503 naming what is unreachable takes the replica out
 * of a load balancer until it reconnects. `gantry dev` answers a failed check with 500, as the
 * official dev server does.
 */
export function healthCheck(storage: DatabaseHealth, probes: HealthProbe[]): (checkDb: boolean) => Promise<HealthAnswer> {
  const database: HealthProbe = { name: "database", label: storage.backend === "postgres" ? "PostgreSQL" : "SQLite", ping: () => storage.ping() };
  const checks = [database, ...probes].map((probe) => ({ probe, ping: singleFlight(probe.ping) }));
  return async (checkDb) => {
    if (!checkDb) return { body: { ok: true }, status: 200 };
    const results = await Promise.all(checks.map(async ({ probe, ping }) => ({ probe, up: await withinDeadline(ping()) })));
    const services = Object.fromEntries(results.map(({ probe, up }) => [probe.name, up ? "ok" : "unreachable"]));
    const down = results.filter(({ up }) => !up).map(({ probe }) => probe.label);
    if (down.length === 0) return { body: { ok: true, services }, status: 200 };
    if (probes.length === 0) return { body: { ok: false, services }, status: 500 };
    return {
      body: { ok: false, detail: `Unhealthy: cannot reach ${down.join(" and ")}`, services },
      status: 503,
      headers: retryAfter("unavailable"),
    };
  };
}

/**
 * How long a readiness check waits for each service. A service that neither answers nor refuses (a
 * partition, a stalled proxy) counts as down rather than holding the probe: orchestrators give a
 * probe about a second. A healthy database answers in milliseconds; one whose pool is so busy that
 * a ping waits half a second for a connection is a replica that should take no more traffic anyway.
 */
export const PROBE_DEADLINE_MS = 500;

async function withinDeadline(ping: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), PROBE_DEADLINE_MS)));
  try {
    return await Promise.race([ping.catch(() => false), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One ping in flight at a time: while a service hangs, each probe would otherwise leave one more
 * ping waiting (a pooled connection, a queued Redis command) until the service answers.
 */
function singleFlight(ping: () => Promise<boolean>): () => Promise<boolean> {
  let inFlight: Promise<boolean> | undefined;
  return () => {
    inFlight ??= ping()
      .catch(() => false)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
}

export function healthRoute({ storage, probes = [] }: { storage: DatabaseHealth; probes?: HealthProbe[] }): RouteSpec {
  const check = healthCheck(storage, probes);
  const services = probes.length > 0 ? "PostgreSQL and Redis" : "the database";
  return route({
    method: "get",
    path: "/ok",
    tag: TAG,
    summary: "Liveness, or with check_db=1 readiness",
    description:
      'Without check_db: liveness. It answers {"ok": true} from the process alone, asking no database or Redis, so it ' +
      "suits an orchestrator's liveness probe. With check_db=1: readiness. It asks " +
      services +
      ` (each given ${PROBE_DEADLINE_MS} ms, so the answer comes within a second even while one hangs) and lists each under ` +
      "`services`; for a load balancer's or a readiness probe." +
      (probes.length > 0 ? " A service that cannot be reached answers 503 with Retry-After." : " A database that cannot be reached answers 500."),
    query: z.object({ check_db: optional(queryBool) }).strict(),
    responses:
      probes.length > 0
        ? { 200: "Alive; with check_db=1 also ready", 503: "check_db=1: PostgreSQL or Redis cannot be reached (Retry-After says when to ask again)" }
        : { 200: "Alive; with check_db=1 also ready", 500: "check_db=1: the database cannot be reached" },
    handler: async (c, { query }) => {
      const { body, status, headers } = await check(query.check_db === true);
      return c.json(body, status, headers);
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
