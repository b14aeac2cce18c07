// /runs/crons and /threads/{id}/runs/crons routes (spec §1.5): create, read, update, delete, search
// and count crons. Firing them is the scheduler's job.
import type { CronService } from "../../domain/crons.js";
import type { CronFilter, JsonObject } from "../../domain/records.js";
import { project, setPaginationHeaders } from "../paging.js";
import { accessOf } from "../app-env.js";
import { route, type RouteSpec } from "../route.js";
import { CronCountBody, CronCreateBody, CronPatchBody, CronSearchBody } from "../schemas/crons.js";
import { uuidParam } from "../validation.js";

const TAG = "Crons";

export function cronRoutes({ crons }: { crons: CronService }): RouteSpec[] {
  return [
    route({
      method: "post",
      path: "/runs/crons",
      tag: TAG,
      summary: "Create a stateless cron: each occurrence runs on a new thread",
      body: CronCreateBody,
      responses: { 200: "The cron", 404: "Assistant not found", 422: "Invalid body, schedule or time zone" },
      returns: "Cron",
      handler: async (c, { body }) => c.json(await crons.create(null, body, accessOf(c))),
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/runs/crons",
      tag: TAG,
      summary: "Create a cron whose runs happen on a thread",
      body: CronCreateBody,
      responses: { 200: "The cron", 404: "Thread or assistant not found", 422: "Invalid body, schedule or time zone" },
      returns: "Cron",
      handler: async (c, { body }) => c.json(await crons.create(uuidParam(c, "thread_id"), body, accessOf(c))),
    }),
    route({
      method: "post",
      path: "/runs/crons/search",
      tag: TAG,
      summary: "Search crons by assistant, thread, enabled and metadata",
      body: CronSearchBody,
      bodyOptional: true,
      responses: { 200: "Matching crons, with X-Pagination-Total and X-Pagination-Next", 422: "Invalid body" },
      returns: "CronList",
      handler: async (c, { body }) => {
        const page = { limit: body.limit ?? 10, offset: body.offset ?? 0 };
        const result = await crons.search(filterOf(body), { by: body.sort_by ?? "created_at", order: body.sort_order ?? "desc" }, page, accessOf(c));
        setPaginationHeaders(c, page, result);
        return c.json(result.items.map((cron) => project(body.select?.includes("now") ? { ...cron, now: result.now } : cron, body.select)));
      },
    }),
    route({
      method: "post",
      path: "/runs/crons/count",
      tag: TAG,
      summary: "Count crons matching a filter",
      body: CronCountBody,
      bodyOptional: true,
      responses: { 200: "The number of matching crons", 422: "Invalid body" },
      handler: async (c, { body }) => c.json(await crons.count(filterOf(body), accessOf(c))),
    }),
    route({
      method: "get",
      path: "/runs/crons/:cron_id",
      tag: TAG,
      summary: "Get a cron",
      responses: { 200: "The cron", 404: "Not found", 422: "Invalid id" },
      returns: "Cron",
      handler: async (c) => c.json(await crons.get(uuidParam(c, "cron_id"), accessOf(c))),
    }),
    route({
      method: "patch",
      path: "/runs/crons/:cron_id",
      tag: TAG,
      summary: "Update a cron (end_time null clears it; metadata is merged)",
      body: CronPatchBody,
      bodyOptional: true,
      responses: { 200: "The cron", 404: "Not found", 422: "Invalid body, schedule or time zone" },
      returns: "Cron",
      handler: async (c, { body }) => c.json(await crons.update(uuidParam(c, "cron_id"), body, accessOf(c))),
    }),
    route({
      method: "delete",
      path: "/runs/crons/:cron_id",
      tag: TAG,
      summary: "Delete a cron",
      responses: { 204: "Deleted", 404: "Not found", 422: "Invalid id" },
      handler: async (c) => {
        await crons.delete(uuidParam(c, "cron_id"), accessOf(c));
        return c.body(null, 204);
      },
    }),
  ];
}

function filterOf(body: { assistant_id?: string; thread_id?: string; enabled?: boolean; metadata?: Record<string, unknown> }): CronFilter {
  return {
    ...(body.assistant_id !== undefined ? { assistant_id: body.assistant_id } : {}),
    ...(body.thread_id !== undefined ? { thread_id: body.thread_id } : {}),
    ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata as JsonObject } : {}),
  };
}
