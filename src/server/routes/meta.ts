// Meta routes: health, server info, metrics, and the API description (spec §1.7).
import type { Storage } from "../../storage/ports.js";
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

export function healthRoute({ storage }: { storage: Storage }): RouteSpec {
  return route({
    method: "get",
    path: "/ok",
    tag: TAG,
    summary: "Health check; with check_db=1 the database is asked too",
    query: z.object({ check_db: optional(queryBool) }).strict(),
    responses: { 200: "Healthy", 500: "The database cannot be reached" },
    handler: async (c, { query }) => {
      if (!query.check_db) return c.json({ ok: true });
      const db = await storage.ping().catch(() => false);
      return c.json(db ? { ok: true, services: { database: "ok" } } : { ok: false, services: { database: "unreachable" } }, db ? 200 : 500);
    },
  });
}

export function metaRoutes(deps: {
  storage: Storage;
  metrics: Metrics;
  capabilities: Capabilities;
  prefix: string;
  allRoutes: () => RouteSpec[];
  /** Set when custom auth protects the API. */
  security?: OpenApiSecurity;
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
          flags: { ...deps.capabilities, langsmith: false, langsmith_tracing_replicas: false },
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
      handler: (c, { query }) =>
        query.format === "json"
          ? c.json(deps.metrics.json())
          : c.text(deps.metrics.prometheus(), 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" }),
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
