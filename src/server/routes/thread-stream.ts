// GET /threads/{id}/stream (spec §4.6): follows every run of a thread, in order, for as long as the
// client stays. `run_modes` carries the runs' events with lifecycle markers, `lifecycle` only the
// markers, `state_update` the thread's state after each run.
import { z } from "zod";
import type { RunOutputService, ThreadStreamMode } from "../../domain/run-output.js";
import type { ThreadService } from "../../domain/threads.js";
import { accessOf } from "../app-env.js";
import { requestHeader } from "../node-request.js";
import { route, type RouteSpec } from "../route.js";
import { optional } from "../schemas/common.js";
import { parseLastEventId, sseResponse } from "../sse.js";
import { uuidParam } from "../validation.js";

const THREAD_MODES = ["run_modes", "lifecycle", "state_update"] as const;

const ThreadStreamQuery = z
  .object({
    stream_mode: optional(z.array(z.enum(THREAD_MODES))),
    stream_modes: optional(z.array(z.enum(THREAD_MODES))),
  })
  .strict();

export function threadStreamRoutes({ threads, output }: { threads: ThreadService; output: RunOutputService }): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/threads/:thread_id/stream",
      tag: "Threads",
      summary: "Follow every run of a thread (SSE); Last-Event-ID '-' replays what is retained",
      query: ThreadStreamQuery,
      listQuery: ["stream_mode", "stream_modes"],
      responses: { 200: "Server-sent events", 404: "Thread not found", 422: "Invalid id or query" },
      handler: async (c, { query }) => {
        const threadId = uuidParam(c, "thread_id");
        await threads.get(threadId, {}, accessOf(c));
        const modes = new Set<ThreadStreamMode>([...(query.stream_mode ?? []), ...(query.stream_modes ?? [])]);
        if (modes.size === 0) modes.add("run_modes");
        const lastEventId = parseLastEventId(requestHeader(c, "last-event-id"));
        const reader = new AbortController();
        const events = await output.threadEvents(threadId, modes, { ...(lastEventId !== undefined ? { after: lastEventId } : {}), signal: reader.signal });
        return sseResponse(c, events, { onDisconnect: () => reader.abort() });
      },
    }),
  ];
}
