// CORS per `http.cors` (or CORS_ALLOW_ORIGINS), always exposing the headers the SDKs read.
// The headers go onto the finished response after the handler: touching `c.res` before the handler
// (as hono/cors does) makes Hono rebuild every response as a full fetch Response with a streamed
// body, which cost more than the rest of a small request.
import type { MiddlewareHandler } from "hono";
import type { HttpConfig } from "../config/langgraph-config.js";
import { requestHeader } from "./node-request.js";

const ALWAYS_EXPOSED = ["Content-Location", "Location", "X-Pagination-Next", "X-Pagination-Total"];
const DEFAULT_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

export function corsMiddleware(http: HttpConfig, allowOrigins: string[]): MiddlewareHandler {
  const settings = http.cors ?? {};
  const regex = settings.allow_origin_regex ? new RegExp(settings.allow_origin_regex) : undefined;
  const wildcard = allowOrigins.includes("*");
  const anyOrigin = wildcard && !regex;
  // A wildcard origin never carries credentials (the platform disabled that combination).
  const credentials = (settings.allow_credentials ?? false) && !wildcard;
  const exposed = [...new Set([...ALWAYS_EXPOSED, ...(settings.expose_headers ?? [])])].join(",");
  const methods = (settings.allow_methods ?? DEFAULT_METHODS).join(",");
  const allowedHeaders = settings.allow_headers?.join(",");

  const allowOrigin = (origin: string): string | null => {
    if (anyOrigin) return "*";
    if (allowOrigins.includes(origin) || regex?.test(origin) || wildcard) return origin;
    return null;
  };

  const common = (origin: string): Array<[string, string]> => {
    const headers: Array<[string, string]> = [];
    const allowed = allowOrigin(origin);
    if (allowed) headers.push(["Access-Control-Allow-Origin", allowed]);
    if (credentials) headers.push(["Access-Control-Allow-Credentials", "true"]);
    headers.push(["Access-Control-Expose-Headers", exposed]);
    if (!anyOrigin) headers.push(["Vary", "Origin"]);
    return headers;
  };

  return async (c, next) => {
    const origin = requestHeader(c, "origin") ?? "";
    // Only browsers read CORS headers, and they send Origin on every cross-origin request: a request
    // without one (the SDKs from a server, curl) gets none, as on the platform.
    if (!origin && c.req.method !== "OPTIONS") return next();
    if (c.req.method === "OPTIONS") {
      const headers = new Headers(common(origin));
      headers.set("Access-Control-Allow-Methods", methods);
      if (settings.max_age !== undefined) headers.set("Access-Control-Max-Age", String(settings.max_age));
      const requested =
        allowedHeaders ??
        requestHeader(c, "access-control-request-headers")
          ?.split(",")
          .map((h) => h.trim())
          .join(",");
      if (requested) {
        headers.set("Access-Control-Allow-Headers", requested);
        headers.append("Vary", "Access-Control-Request-Headers");
      }
      return new Response(null, { status: 204, headers });
    }
    await next();
    const headers = common(origin);
    const apply = (target: Headers) => {
      for (const [name, value] of headers) name === "Vary" ? target.append(name, value) : target.set(name, value);
    };
    try {
      apply(c.res.headers);
    } catch {
      // Headers of a response fetched from elsewhere (a user's http.app may proxy) are immutable.
      c.res = new Response(c.res.body, c.res);
      apply(c.res.headers);
    }
  };
}
