// /openapi.json and /docs, both generated from the route declarations that serve requests.
import { z } from "zod";
import type { RouteSpec } from "./route.js";
import { AssistantRecord } from "./schemas/assistants.js";
import { CronRecord } from "./schemas/crons.js";
import { ThreadRecord } from "./schemas/threads.js";

const COMPONENTS: Record<string, z.ZodType> = {
  Assistant: AssistantRecord,
  AssistantList: z.array(AssistantRecord),
  Thread: ThreadRecord,
  ThreadList: z.array(ThreadRecord),
  Cron: CronRecord,
  CronList: z.array(CronRecord),
};

const toSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

/** With custom auth: the schemes (`auth.openapi` in langgraph.json, or a generic bearer scheme) and the paths left open. */
export interface OpenApiSecurity {
  securitySchemes: Record<string, unknown>;
  security: unknown[];
  openPaths: readonly string[];
}

/** The security section for custom auth: `auth.openapi` as given, or a bearer scheme naming the user's own check. */
export function openApiSecurity(authOpenApi: Record<string, unknown> | undefined, openPaths: readonly string[]): OpenApiSecurity {
  const schemes = authOpenApi?.securitySchemes as Record<string, unknown> | undefined;
  if (schemes) {
    const security = (authOpenApi?.security as unknown[] | undefined) ?? Object.keys(schemes).map((name) => ({ [name]: [] }));
    return { securitySchemes: schemes, security, openPaths };
  }
  return {
    securitySchemes: {
      custom_auth: { type: "http", scheme: "bearer", description: "Checked by the project's own authenticate hook (langgraph.json auth.path)." },
    },
    security: [{ custom_auth: [] }],
    openPaths,
  };
}

export function buildOpenApi(
  routes: RouteSpec[],
  info: {
    version: string;
    prefix: string;
    title?: string;
    description?: string;
    components?: Record<string, z.ZodType>;
    security?: OpenApiSecurity;
  },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const path = info.prefix + spec.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const parameters: unknown[] = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    if (spec.query) {
      const query = toSchema(spec.query) as { properties?: Record<string, unknown> };
      for (const [name, schema] of Object.entries(query.properties ?? {})) {
        parameters.push({ name, in: "query", required: false, schema });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(spec.responses)) {
      const ok = Number(status) < 300 && Number(status) !== 204;
      responses[status] = {
        description,
        ...(ok && spec.returns ? { content: { "application/json": { schema: { $ref: `#/components/schemas/${spec.returns}` } } } } : {}),
        ...(Number(status) >= 400 ? { content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorResponse" } } } } : {}),
      };
    }
    paths[path] ??= {};
    paths[path][spec.method] = {
      tags: [spec.tag],
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(info.security?.openPaths.includes(spec.path) ? { security: [] } : {}),
      ...(spec.body ? { requestBody: { required: !spec.bodyOptional, content: { "application/json": { schema: toSchema(spec.body) } } } } : {}),
      responses,
    };
  }
  const schemas: Record<string, unknown> = {
    ErrorResponse: { type: "object", properties: { detail: { type: "string" } }, required: ["detail"] },
  };
  for (const [name, schema] of Object.entries(info.components ?? COMPONENTS)) schemas[name] = toSchema(schema);
  return {
    openapi: "3.1.0",
    info: {
      title: info.title ?? "Gantry Agent Server",
      version: info.version,
      description: info.description ?? "The LangGraph Agent Server API, served by Gantry.",
    },
    paths,
    components: { schemas, ...(info.security ? { securitySchemes: info.security.securitySchemes } : {}) },
    ...(info.security ? { security: info.security.security } : {}),
  };
}

export function renderDocsPage(routes: RouteSpec[], info: { version: string; prefix: string }): string {
  const rows = routes
    .map(
      (r) =>
        `<tr><td class="m ${r.method}">${r.method.toUpperCase()}</td><td><code>${escapeHtml(info.prefix + r.path.replace(/:([A-Za-z_]+)/g, "{$1}"))}</code></td><td>${escapeHtml(r.summary)}</td><td>${escapeHtml(Object.keys(r.responses).join(", "))}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gantry Agent Server API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;width:100%}td,th{padding:.35rem .6rem;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
.m{font-weight:600;font-family:monospace}.get{color:#0a7}.post{color:#06c}.patch{color:#a60}.delete{color:#c22}.put{color:#739}
code{font-size:14px}
</style></head><body>
<h1>Gantry Agent Server API <small>${escapeHtml(info.version)}</small></h1>
<p>The same API as the LangGraph Agent Server: point <code>@langchain/langgraph-sdk</code> or <code>langgraph-sdk</code> at this server.
The machine-readable description is at <a href="${info.prefix}/openapi.json">${info.prefix}/openapi.json</a>. Errors answer <code>{"detail": "..."}</code>.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>What it does</th><th>Statuses</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}
