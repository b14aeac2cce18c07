// Generative UI as the official server serves it: `POST /ui/{assistant_id}` answers the HTML that
// the SDK's LoadExternalComponent puts in its shadow root (a stylesheet link per CSS file, and a
// script that renders the named component once loaded), and `GET /ui/{graph_id}/{file}` serves
// the built files it names. The files are public like any page asset (auth-middleware.ts); the
// POST is authenticated, and reads an assistant as its caller, so one they cannot see answers 404.
import { extname } from "node:path";
import { z } from "zod";
import type { AssistantService } from "../../domain/assistants.js";
import { notFound } from "../../errors.js";
import { isUuid } from "../../ids.js";
import type { GenerativeUiFiles } from "../../generative-ui/generative-ui.js";
import { accessOf } from "../app-env.js";
import { route, type RouteSpec } from "../route.js";

const TAG = "Generative UI";

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json",
};

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

export function generativeUiRoutes(deps: { ui: GenerativeUiFiles; assistants: AssistantService; prefix: string }): RouteSpec[] {
  return [
    route({
      method: "post",
      path: "/ui/:assistant_id",
      tag: TAG,
      summary: "The HTML that loads a component of the assistant's graph (LoadExternalComponent)",
      body: z.object({ name: z.string().min(1) }),
      responses: { 200: "text/html: the component's stylesheets and script", 404: "No such assistant, or its graph has no `ui` entry" },
      handler: async (c, { body }) => {
        // The SDK sends its stream's assistantId: an assistant's UUID, or a graph ID as the official
        // server expects it.
        const id = c.req.param("assistant_id") ?? "";
        const graphId = isUuid(id) ? (await deps.assistants.get(id, accessOf(c))).graph_id : id;
        const files = deps.ui.files(graphId);
        if (!files?.length) throw notFound(`No generative UI for graph '${graphId}': langgraph.json's ui has no entry for it`);
        // Absolute URLs: the HTML lands in the page's document, whose own URL may be anywhere.
        // Plain http for a loopback host, as the official server does; elsewhere the page's scheme.
        const host = c.req.header("host") ?? new URL(c.req.url).host;
        const base = `${LOOPBACK_HOST.test(host) ? "http:" : ""}//${host}${deps.prefix}/ui/${encodeURIComponent(graphId)}/`;
        const html: string[] = [];
        for (const file of files.filter((f) => extname(f.basename) === ".css")) {
          html.push(`<link rel="stylesheet" href="${escapeAttribute(base + file.basename)}" />`);
        }
        const script = files.find((f) => extname(f.basename) === ".js");
        if (script) {
          // The bundle defines this global (the bundler names it after the graph); {{shadowRootId}}
          // is filled in by LoadExternalComponent. Single-quoted, so the script reads as the
          // official server writes it: pages and tests match that markup as text.
          const render = `${bundleGlobal(graphId)}.render(${JSON.stringify(body.name)}, "{{shadowRootId}}")`;
          html.push(`<script src="${escapeAttribute(base + script.basename)}" onload='${escapeAttribute(render, { keepDoubleQuotes: true })}'></script>`);
        }
        return c.body(html.join("\n"), 200, { "content-type": "text/html; charset=utf-8" });
      },
    }),
    route({
      method: "get",
      path: "/ui/:graph_id/:file",
      tag: TAG,
      summary: "A built file of a graph's components",
      responses: { 200: "The file", 404: "No such file" },
      handler: (c) => {
        const graphId = c.req.param("graph_id") ?? "";
        const name = c.req.param("file") ?? "";
        const file = deps.ui.files(graphId)?.find((f) => f.basename === name);
        if (!file) throw notFound(`No generative UI file '${name}' for graph '${graphId}'`);
        // Rebuilt under the same name under `gantry dev`: revalidate every time.
        return c.body(new Uint8Array(file.contents), 200, {
          "content-type": CONTENT_TYPES[extname(name)] ?? "application/octet-stream",
          "cache-control": "no-cache",
          "x-content-type-options": "nosniff",
        });
      },
    }),
  ];
}

/** The global the official bundler gives a graph's bundle (`__LGUI_` and the id, word characters only). */
function bundleGlobal(graphId: string): string {
  return `__LGUI_${graphId.replace(/[^a-zA-Z0-9]/g, "_")}`;
}

/** Escapes text for an attribute value; `keepDoubleQuotes` for a value in single quotes. */
function escapeAttribute(text: string, options: { keepDoubleQuotes?: boolean } = {}): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/'/g, "&#39;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return options.keepDoubleQuotes ? escaped : escaped.replace(/"/g, "&quot;");
}
