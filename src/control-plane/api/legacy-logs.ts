// The /v1 log queries the official CLI makes (`langgraph deploy logs`, and the build log it shows
// while and after a remote build): POST with the query in a JSON body. "Project" is the
// deployment. They read the same log lines as GET .../revisions/{id}/logs.
import type { Context } from "hono";
import { z } from "zod";
import { ValidationFailure } from "../../errors.js";
import { isUuid } from "../../ids.js";
import { route, type RouteSpec } from "../../server/route.js";
import type { DeploymentService, LogPage, LogsInput } from "../deployments.js";
import type { LogType } from "../storage/records.js";
import { LIMITS, line } from "./limits.js";
import { tenantOf } from "./routes.js";
import { logWire } from "./wire.js";

const TAG = "Logs (v1, as the official CLI reads them)";

const isoTime = z.iso.datetime({ offset: true, error: "must be an ISO-8601 date-time" });

export const LegacyLogsBody = z.object({
  limit: z.number({ error: "must be a whole number" }).int({ error: "must be a whole number" }).min(1).max(1000).default(100),
  order: z.enum(["asc", "desc"]).default("desc"),
  offset: z
    .string()
    .regex(/^\d{1,16}$/, "must be a cursor this server returned in next_offset")
    .refine((s) => Number(s) <= Number.MAX_SAFE_INTEGER, "must be a cursor this server returned in next_offset")
    .nullish(),
  level: z.enum(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]).nullish(),
  query: line(LIMITS.short).nullish(),
  start_time: isoTime.nullish(),
  end_time: isoTime.nullish(),
});

function pathUuid(c: Context, name: string): string {
  const value = c.req.param(name) ?? "";
  if (!isUuid(value)) throw new ValidationFailure([{ loc: ["path", name], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  return value.toLowerCase();
}

function input(type: LogType, body: z.output<typeof LegacyLogsBody>): LogsInput {
  return {
    type,
    order: body.order,
    limit: body.limit,
    ...(body.offset ? { offset: body.offset } : {}),
    ...(body.level ? { level: body.level } : {}),
    ...(body.query ? { query: body.query } : {}),
    ...(body.start_time ? { start_time: body.start_time } : {}),
    ...(body.end_time ? { end_time: body.end_time } : {}),
  };
}

const answer = (c: Context, page: LogPage) => c.json({ logs: page.logs.map(logWire), next_offset: page.next_offset });

export function legacyLogRoutes(deployments: DeploymentService): RouteSpec[] {
  const responses = {
    200: "Log entries (id, timestamp in epoch ms, level, message) and next_offset",
    404: "Unknown deployment or revision",
    422: "Invalid body",
  };
  return [
    route({
      method: "post",
      path: "/v1/projects/:project_id/revisions/:revision_id/build_logs",
      tag: TAG,
      summary: "A revision's build log",
      body: LegacyLogsBody,
      bodyOptional: true,
      responses,
      handler: async (c, { body }) =>
        answer(c, await deployments.logs(pathUuid(c, "project_id"), pathUuid(c, "revision_id"), tenantOf(c), input("build", body))),
    }),
    route({
      method: "post",
      path: "/v1/projects/:project_id/revisions/:revision_id/deploy_logs",
      tag: TAG,
      summary: "A revision's deploy log: its server's start, health check and output",
      body: LegacyLogsBody,
      bodyOptional: true,
      responses,
      handler: async (c, { body }) =>
        answer(c, await deployments.logs(pathUuid(c, "project_id"), pathUuid(c, "revision_id"), tenantOf(c), input("deploy", body))),
    }),
    route({
      method: "post",
      path: "/v1/projects/:project_id/deploy_logs",
      tag: TAG,
      summary: "The deploy logs of all the deployment's revisions, as one stream",
      body: LegacyLogsBody,
      bodyOptional: true,
      responses,
      handler: async (c, { body }) => answer(c, await deployments.deploymentLogs(pathUuid(c, "project_id"), tenantOf(c), input("deploy", body))),
    }),
  ];
}
