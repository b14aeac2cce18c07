// /threads routes (spec §1.2, without state/history/streams, which come with the run engine).
import type { ThreadService } from "../../domain/threads.js";
import type { JsonObject, ThreadFilter } from "../../domain/records.js";
import { project, setPaginationHeaders } from "../paging.js";
import { accessOf } from "../app-env.js";
import { requestHeader } from "../node-request.js";
import { route, type RouteSpec } from "../route.js";
import { ThreadCountBody, ThreadCreateBody, ThreadGetQuery, ThreadPatchBody, ThreadPruneBody, ThreadSearchBody } from "../schemas/threads.js";
import { uuidParam } from "../validation.js";

const TAG = "Threads";

export function threadRoutes({ threads }: { threads: ThreadService }): RouteSpec[] {
  return [
    route({
      method: "post",
      path: "/threads",
      tag: TAG,
      summary: "Create a thread",
      body: ThreadCreateBody,
      bodyOptional: true,
      responses: { 200: "The thread", 409: "The thread exists and if_exists is raise", 422: "Invalid body" },
      returns: "Thread",
      handler: async (c, { body }) => c.json(await threads.create({ ...body, metadata: body.metadata as JsonObject | undefined }, accessOf(c))),
    }),
    route({
      method: "post",
      path: "/threads/search",
      tag: TAG,
      summary: "Search threads by ids, metadata, values and status",
      body: ThreadSearchBody,
      bodyOptional: true,
      responses: { 200: "Matching threads, with X-Pagination-Total and X-Pagination-Next", 422: "Invalid body" },
      returns: "ThreadList",
      handler: async (c, { body }) => {
        const page = { limit: body.limit ?? 10, offset: body.offset ?? 0 };
        const result = await threads.search(
          { ...filterOf(body), ...(body.ids ? { ids: body.ids } : {}) },
          { by: body.sort_by ?? "updated_at", order: body.sort_order ?? "desc" },
          page,
          body.extract,
          accessOf(c),
        );
        setPaginationHeaders(c, page, result);
        const select = body.select && body.extract ? [...body.select, "extracted"] : body.select;
        return c.json(result.items.map((t) => project(t, select)));
      },
    }),
    route({
      method: "post",
      path: "/threads/count",
      tag: TAG,
      summary: "Count threads matching a filter",
      body: ThreadCountBody,
      bodyOptional: true,
      responses: { 200: "The number of matching threads", 422: "Invalid body" },
      handler: async (c, { body }) => c.json(await threads.count(filterOf(body), accessOf(c))),
    }),
    route({
      method: "post",
      path: "/threads/prune",
      tag: TAG,
      summary: "Delete threads, or trim their history to the latest state",
      body: ThreadPruneBody,
      responses: { 200: "How many threads were pruned", 422: "Invalid body" },
      handler: async (c, { body }) => c.json({ pruned_count: await threads.prune(body.thread_ids, body.strategy ?? "delete", accessOf(c)) }),
    }),
    route({
      method: "get",
      path: "/threads/:thread_id",
      tag: TAG,
      summary: "Get a thread (with include=ttl, its TTL)",
      query: ThreadGetQuery,
      listQuery: ["include"],
      responses: { 200: "The thread", 404: "Not found", 422: "Invalid id or query" },
      returns: "Thread",
      handler: async (c, { query }) =>
        c.json(await threads.get(uuidParam(c, "thread_id"), { includeTtl: query.include?.includes("ttl") ?? false }, accessOf(c))),
    }),
    route({
      method: "patch",
      path: "/threads/:thread_id",
      tag: TAG,
      summary: "Update a thread's metadata (merged) and TTL; Prefer: return=minimal answers 204",
      body: ThreadPatchBody,
      bodyOptional: true,
      responses: { 200: "The thread", 204: "Updated (Prefer: return=minimal)", 404: "Not found", 422: "Invalid body or id" },
      returns: "Thread",
      handler: async (c, { body }) => {
        const updated = await threads.update(
          uuidParam(c, "thread_id"),
          {
            ...(body.metadata ? { metadata: body.metadata as JsonObject } : {}),
            ...(body.ttl !== undefined ? { ttl: body.ttl } : {}),
          },
          accessOf(c),
        );
        if (/\breturn=minimal\b/i.test(requestHeader(c, "prefer") ?? "")) return c.body(null, 204);
        return c.json(updated);
      },
    }),
    route({
      method: "delete",
      path: "/threads/:thread_id",
      tag: TAG,
      summary: "Delete a thread",
      responses: { 204: "Deleted", 404: "Not found", 422: "Invalid id" },
      handler: async (c) => {
        await threads.delete(uuidParam(c, "thread_id"), accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/copy",
      tag: TAG,
      summary: "Copy a thread under a new id",
      responses: { 200: "The new thread", 409: "The source thread does not exist", 422: "Invalid id" },
      returns: "Thread",
      handler: async (c) => c.json(await threads.copy(uuidParam(c, "thread_id"), accessOf(c))),
    }),
  ];
}

function filterOf(body: { metadata?: Record<string, unknown>; values?: Record<string, unknown>; status?: ThreadFilter["status"] }): ThreadFilter {
  return {
    ...(body.metadata ? { metadata: body.metadata as JsonObject } : {}),
    ...(body.values ? { values: body.values as JsonObject } : {}),
    ...(body.status ? { status: body.status } : {}),
  };
}
