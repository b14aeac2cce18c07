// CORS per `http.cors` (or CORS_ALLOW_ORIGINS), always exposing the headers the SDKs read.
import { cors } from "hono/cors";
import type { HttpConfig } from "../config/langgraph-config.js";

const ALWAYS_EXPOSED = ["Content-Location", "Location", "X-Pagination-Next", "X-Pagination-Total"];

export function corsMiddleware(http: HttpConfig, allowOrigins: string[]) {
  const settings = http.cors ?? {};
  const regex = settings.allow_origin_regex ? new RegExp(settings.allow_origin_regex) : undefined;
  const wildcard = allowOrigins.includes("*");
  return cors({
    origin: (origin) => {
      if (wildcard && !regex) return "*";
      if (allowOrigins.includes(origin) || regex?.test(origin) || wildcard) return origin;
      return null;
    },
    allowMethods: settings.allow_methods ?? ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    ...(settings.allow_headers ? { allowHeaders: settings.allow_headers } : {}),
    exposeHeaders: [...new Set([...ALWAYS_EXPOSED, ...(settings.expose_headers ?? [])])],
    // A wildcard origin never carries credentials (the platform disabled that combination).
    credentials: (settings.allow_credentials ?? false) && !wildcard,
    ...(settings.max_age !== undefined ? { maxAge: settings.max_age } : {}),
  });
}
