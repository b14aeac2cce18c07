// A route is declared once, with its schemas, and that one declaration both serves requests and
// describes them in /openapi.json, so the documentation cannot drift from what is served.
import type { Context, Hono } from "hono";
import type { AppEnv } from "./app-env.js";
import type { z } from "zod";
import type { Logger } from "../logging.js";
import { checkPathParams, parseAsList, parseWith, queryObject, readJson } from "./validation.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface RouteInput<B, Q> {
  body: B;
  query: Q;
}

export interface RouteSpec {
  method: Method;
  /** Hono path pattern, e.g. "/threads/:thread_id". */
  path: string;
  tag: string;
  summary: string;
  /** A longer explanation for /openapi.json, where a summary cannot say enough. */
  description?: string;
  body?: z.ZodType;
  /** When true the body may be absent (treated as {}); otherwise a missing body is validated as undefined. */
  bodyOptional?: boolean;
  query?: z.ZodType;
  /** Query keys that hold lists (accepted as repeated keys, JSON arrays or comma lists). */
  listQuery?: readonly string[];
  /** Documented response: status and a short description. */
  responses: Record<number, string>;
  /** Name of a component schema in the OpenAPI document describing a successful response. */
  returns?: string;
  handler: (c: Context<AppEnv>, input: RouteInput<unknown, unknown>) => Promise<Response> | Response;
}

export function route<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(spec: {
  method: Method;
  path: string;
  tag: string;
  summary: string;
  description?: string;
  body?: B;
  bodyOptional?: boolean;
  query?: Q;
  listQuery?: readonly string[];
  responses: Record<number, string>;
  returns?: string;
  handler: (
    c: Context<AppEnv>,
    input: RouteInput<B extends z.ZodType ? z.output<B> : undefined, Q extends z.ZodType ? z.output<Q> : undefined>,
  ) => Promise<Response> | Response;
}): RouteSpec {
  return spec as RouteSpec;
}

/**
 * `sentence` (the Agent Server) ignores fields it does not know, as the official server does, and
 * names them in a debug line; `list` answers every failure, unknown fields included, as
 * `{"detail": [{loc, msg, type}]}` (the control-plane API).
 */
export function mountRoutes(app: Hono<AppEnv>, routes: RouteSpec[], options: { validation?: "sentence" | "list"; log?: Logger } = {}): void {
  for (const spec of routes) {
    app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      c.set("routePattern", spec.path);
      // The Agent Server's limits (domain/limits.ts) answer in sentences; the control-plane API's
      // schemas hold its fields to its own rules and answer in its list form.
      const limits = options.validation !== "list";
      if (limits) checkPathParams(c.req.param());
      const parse = <S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query") =>
        options.validation === "list"
          ? parseAsList(schema, value, where)
          : parseWith(schema, value, where, (fields) =>
              options.log?.debug("ignored unknown fields", { request_id: c.get("requestId"), route: spec.path, where, fields }),
            );
      let body: unknown;
      if (spec.body) {
        const raw = await readJson(c, { limits });
        body = parse(spec.body, raw === undefined && spec.bodyOptional ? {} : raw, "body");
      }
      const query = spec.query ? parse(spec.query, queryObject(c, spec.listQuery ?? [], { limits }), "query") : undefined;
      return spec.handler(c, { body, query });
    });
  }
}
