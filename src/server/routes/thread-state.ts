// /threads/{id}/state and /threads/{id}/history (spec §1.2): thread state read and written outside runs.
import type { ThreadStateService } from "../../domain/thread-state.js";
import { accessOf } from "../app-env.js";
import { route, type RouteSpec } from "../route.js";
import { HistoryBody, HistoryQuery, StateCheckpointBody, StatePatchBody, StateQuery, StateUpdateBody } from "../schemas/threads.js";
import { uuidParam } from "../validation.js";

const TAG = "Thread state";

export function threadStateRoutes({ state }: { state: ThreadStateService }): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/threads/:thread_id/state",
      tag: TAG,
      summary: "The thread's latest state",
      query: StateQuery,
      responses: { 200: "Thread state", 404: "Thread not found", 422: "Invalid id" },
      handler: async (c, { query }) => c.json(await state.get(uuidParam(c, "thread_id"), { subgraphs: query.subgraphs ?? false }, accessOf(c))),
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/state",
      tag: TAG,
      summary: "Update the thread's state, as if a node (as_node) had written it",
      body: StateUpdateBody,
      responses: { 200: "The new checkpoint", 404: "Thread not found", 409: "Thread busy", 422: "Invalid update" },
      handler: async (c, { body }) => {
        const checkpoint = body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : undefined);
        return c.json(
          await state.update(
            uuidParam(c, "thread_id"),
            {
              values: body.values ?? null,
              ...(body.as_node ? { asNode: body.as_node } : {}),
              ...(checkpoint ? { checkpoint } : {}),
            },
            accessOf(c),
          ),
        );
      },
    }),
    route({
      method: "patch",
      path: "/threads/:thread_id/state",
      tag: TAG,
      summary: "Merge keys into the metadata of the thread's latest checkpoint",
      body: StatePatchBody,
      responses: { 204: "Patched", 404: "Thread or checkpoint not found", 422: "Invalid body" },
      handler: async (c, { body }) => {
        await state.patchMetadata(uuidParam(c, "thread_id"), body.metadata, accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "get",
      path: "/threads/:thread_id/state/:checkpoint_id",
      tag: TAG,
      summary: "The thread's state at a checkpoint",
      query: StateQuery,
      responses: { 200: "Thread state", 404: "Thread or checkpoint not found", 422: "Invalid id" },
      handler: async (c, { query }) =>
        c.json(
          await state.get(
            uuidParam(c, "thread_id"),
            { checkpoint: { checkpoint_id: c.req.param("checkpoint_id")! }, subgraphs: query.subgraphs ?? false },
            accessOf(c),
          ),
        ),
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/state/checkpoint",
      tag: TAG,
      summary: "The thread's state at a checkpoint given as an object",
      body: StateCheckpointBody,
      responses: { 200: "Thread state", 404: "Thread or checkpoint not found", 422: "Invalid body" },
      handler: async (c, { body }) =>
        c.json(await state.get(uuidParam(c, "thread_id"), { checkpoint: body.checkpoint, subgraphs: body.subgraphs ?? false }, accessOf(c))),
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/history",
      tag: TAG,
      summary: "The thread's past states, newest first",
      body: HistoryBody,
      bodyOptional: true,
      responses: { 200: "Thread states", 404: "Thread not found", 422: "Invalid body" },
      handler: async (c, { body }) =>
        c.json(
          await state.history(
            uuidParam(c, "thread_id"),
            {
              limit: body.limit ?? 1,
              ...(body.before ? { before: body.before } : {}),
              ...(body.metadata ? { metadata: body.metadata } : {}),
              ...(body.checkpoint ? { checkpoint: body.checkpoint } : {}),
            },
            accessOf(c),
          ),
        ),
    }),
    route({
      method: "get",
      path: "/threads/:thread_id/history",
      tag: TAG,
      summary: "The thread's past states, newest first",
      query: HistoryQuery,
      responses: { 200: "Thread states", 404: "Thread not found", 422: "Invalid query" },
      handler: async (c, { query }) =>
        c.json(await state.history(uuidParam(c, "thread_id"), { limit: query.limit ?? 10, ...(query.before ? { before: query.before } : {}) }, accessOf(c))),
    }),
  ];
}
