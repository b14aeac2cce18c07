// /threads/{id}/runs and /runs routes (spec §1.3, §1.4): create (background, stream, wait), read,
// join, cancel and delete runs. Streams and waits read the run's event log.
import type { Context } from "hono";
import type { RunCreate } from "../../domain/run-request.js";
import type { Run } from "../../domain/records.js";
import type { RunOutputService } from "../../domain/run-output.js";
import type { RunService } from "../../domain/runs.js";
import { GantryError } from "../../errors.js";
import { accessOf, type AppEnv } from "../app-env.js";
import { keepAliveJson } from "../keepalive-json.js";
import { requestHeader, requestHeaders, setAnswerHeader } from "../node-request.js";
import { project } from "../paging.js";
import { route, type RouteSpec } from "../route.js";
import { BulkCancelBody, CancelQuery, JoinQuery, JoinStreamQuery, RunBatch, RunCreateStateful, RunCreateStateless, RunListQuery } from "../schemas/runs.js";
import { parseLastEventId, type SseEvent, sseResponse } from "../sse.js";
import { uuidParam } from "../validation.js";

const TAG = "Runs";

export interface RunRouteDeps {
  runs: RunService;
  output: RunOutputService;
  /** The mount prefix, so Location headers point at the right path. */
  prefix: string;
}

export function runRoutes(deps: RunRouteDeps): RouteSpec[] {
  const { runs, output } = deps;

  const contentLocation = (run: Run, stateless: boolean) => (stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`);
  const joinPath = (run: Run, stateless: boolean) => (stateless ? `/runs/${run.run_id}/stream` : `/threads/${run.thread_id}/runs/${run.run_id}/stream`);

  const create = (c: Context<AppEnv>, threadId: string | null, body: RunCreate) => runs.create(threadId, body, { headers: requestHeaders(c) }, accessOf(c));

  const stream = async (c: Context<AppEnv>, run: Run, options: { stateless: boolean; after?: string; modes?: string[]; cancelOnDisconnect: boolean }) => {
    const prefix = deps.prefix;
    // Aborted when the client leaves, so a reader waiting for the next event lets go at once.
    const reader = new AbortController();
    const events = await output.events(run, {
      ...(options.modes ? { modes: options.modes } : {}),
      ...(options.after !== undefined ? { after: options.after } : {}),
      signal: reader.signal,
    });
    return sseResponse(c, events, {
      headers: { "Content-Location": prefix + contentLocation(run, options.stateless), Location: prefix + joinPath(run, options.stateless) },
      onDisconnect: () => {
        reader.abort();
        if (options.cancelOnDisconnect) void runs.cancel(undefined, run.run_id, "interrupt").catch(() => {});
      },
    });
  };

  const wait = (c: Context<AppEnv>, run: Run, options: { stateless: boolean; cancelOnDisconnect: boolean }) => {
    const prefix = deps.prefix;
    // Python clients re-fetch a failed wait at Location; stateless runs have no join route, so no Location.
    const location: Record<string, string> = options.stateless ? {} : { Location: prefix + contentLocation(run, false) + "/join" };
    return keepAliveJson(c, (signal) => output.output(run, signal), {
      headers: { "Content-Location": prefix + contentLocation(run, options.stateless), ...location },
      ...(options.cancelOnDisconnect ? { onDisconnect: () => void runs.cancel(undefined, run.run_id, "interrupt").catch(() => {}) } : {}),
    });
  };

  const created = (c: Context<AppEnv>, run: Run, stateless: boolean) => {
    setAnswerHeader(c, "Content-Location", deps.prefix + contentLocation(run, stateless));
    return c.json(run);
  };

  return [
    route({
      method: "post",
      path: "/threads/:thread_id/runs",
      tag: TAG,
      summary: "Create a background run on a thread",
      body: RunCreateStateful,
      responses: { 200: "The pending run", 404: "Thread or assistant not found", 409: "Thread busy and multitask_strategy is reject", 422: "Invalid body" },
      returns: "Run",
      handler: async (c, { body }) => created(c, await create(c, uuidParam(c, "thread_id"), body), false),
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/runs/stream",
      tag: TAG,
      summary: "Create a run on a thread and stream its events (SSE)",
      body: RunCreateStateful,
      responses: { 200: "Server-sent events", 404: "Thread or assistant not found", 409: "Thread busy", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const run = await create(c, uuidParam(c, "thread_id"), body);
        return stream(c, run, { stateless: false, after: "-1", cancelOnDisconnect: body.on_disconnect === "cancel" });
      },
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/runs/wait",
      tag: TAG,
      summary: "Create a run on a thread and wait for its final values",
      body: RunCreateStateful,
      responses: { 200: "Final values (with __interrupt__ or __error__)", 404: "Thread or assistant not found", 409: "Thread busy", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const run = await create(c, uuidParam(c, "thread_id"), body);
        return wait(c, run, { stateless: false, cancelOnDisconnect: body.on_disconnect === "cancel" });
      },
    }),
    route({
      method: "get",
      path: "/threads/:thread_id/runs",
      tag: TAG,
      summary: "List a thread's runs, newest first",
      query: RunListQuery,
      listQuery: ["select"],
      responses: { 200: "Runs", 404: "Thread not found", 422: "Invalid query" },
      handler: async (c, { query }) => {
        const list = await runs.list(
          uuidParam(c, "thread_id"),
          query.status ? { status: query.status } : {},
          { limit: query.limit ?? 10, offset: query.offset ?? 0 },
          accessOf(c),
        );
        return c.json(list.map((r) => project(r, query.select)));
      },
    }),
    route({
      method: "get",
      path: "/threads/:thread_id/runs/:run_id",
      tag: TAG,
      summary: "Get a run",
      responses: { 200: "The run", 404: "Not found", 422: "Invalid id" },
      returns: "Run",
      handler: async (c) => c.json(await runs.get(uuidParam(c, "thread_id"), uuidParam(c, "run_id"), accessOf(c))),
    }),
    route({
      method: "delete",
      path: "/threads/:thread_id/runs/:run_id",
      tag: TAG,
      summary: "Delete a finished run",
      responses: { 204: "Deleted", 404: "Not found", 409: "The run is still pending or running", 422: "Invalid id" },
      handler: async (c) => {
        await runs.delete(uuidParam(c, "thread_id"), uuidParam(c, "run_id"), accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "get",
      path: "/threads/:thread_id/runs/:run_id/join",
      tag: TAG,
      summary: "Wait for a run to finish and return its final values",
      query: JoinQuery,
      responses: { 200: "Final values", 404: "Not found", 422: "Invalid id" },
      handler: async (c, { query }) => {
        const run = await runs.get(uuidParam(c, "thread_id"), uuidParam(c, "run_id"), accessOf(c));
        return wait(c, run, { stateless: false, cancelOnDisconnect: query.cancel_on_disconnect ?? false });
      },
    }),
    route({
      method: "get",
      path: "/threads/:thread_id/runs/:run_id/stream",
      tag: TAG,
      summary: "Join a run's event stream (Last-Event-ID resumes; -1 replays a resumable run)",
      query: JoinStreamQuery,
      listQuery: ["stream_mode"],
      responses: { 200: "Server-sent events; a run not found (or not the caller's) is one `error` event saying 404", 422: "Invalid id or query" },
      handler: async (c, { query }) => {
        const threadId = uuidParam(c, "thread_id");
        const runId = uuidParam(c, "run_id");
        return joinStream(c, () => runs.get(threadId, runId, accessOf(c)), false, query);
      },
    }),
    route({
      method: "post",
      path: "/threads/:thread_id/runs/:run_id/cancel",
      tag: TAG,
      summary: "Cancel a run (action interrupt or rollback; wait=1 answers when it has stopped)",
      query: CancelQuery,
      responses: {
        202: "Cancel requested (a finished run is left as it is)",
        204: "Cancelled or already finished (wait=1)",
        404: "Not found",
        422: "Invalid query",
      },
      handler: async (c, { query }) => {
        const threadId = uuidParam(c, "thread_id");
        const run = await runs.cancel(threadId, uuidParam(c, "run_id"), query.action ?? "interrupt", accessOf(c));
        if (!query.wait) return c.body(null, 202);
        await output.output(run);
        return c.body(null, 204);
      },
    }),
    route({
      method: "post",
      path: "/runs",
      tag: TAG,
      summary: "Create a stateless background run",
      body: RunCreateStateless,
      responses: { 200: "The pending run", 404: "Assistant not found", 422: "Invalid body" },
      returns: "Run",
      handler: async (c, { body }) => created(c, await create(c, null, body), true),
    }),
    route({
      method: "post",
      path: "/runs/stream",
      tag: TAG,
      summary: "Create a stateless run and stream its events (SSE)",
      body: RunCreateStateless,
      responses: { 200: "Server-sent events", 404: "Assistant not found", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const run = await create(c, null, body);
        return stream(c, run, { stateless: true, after: "-1", cancelOnDisconnect: body.on_disconnect === "cancel" });
      },
    }),
    route({
      method: "post",
      path: "/runs/wait",
      tag: TAG,
      summary: "Create a stateless run and wait for its final values",
      body: RunCreateStateless,
      responses: { 200: "Final values", 404: "Assistant not found", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const run = await create(c, null, body);
        return wait(c, run, { stateless: true, cancelOnDisconnect: body.on_disconnect === "cancel" });
      },
    }),
    route({
      method: "post",
      path: "/runs/batch",
      tag: TAG,
      summary: "Create several stateless background runs",
      body: RunBatch,
      responses: { 200: "The pending runs", 404: "Assistant not found", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const out: Run[] = [];
        for (const item of body) out.push(await create(c, null, item));
        return c.json(out);
      },
    }),
    route({
      method: "post",
      path: "/runs/cancel",
      tag: TAG,
      summary: "Cancel runs by id on a thread, or every run with a status",
      body: BulkCancelBody,
      query: CancelQuery,
      responses: { 204: "Cancel requested", 422: "Invalid body" },
      handler: async (c, { body, query }) => {
        await runs.cancelMany("status" in body ? body : { threadId: body.thread_id, runIds: body.run_ids }, query.action ?? "interrupt", accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "get",
      path: "/runs/:run_id/stream",
      tag: TAG,
      summary: "Join a stateless run's event stream",
      query: JoinStreamQuery,
      listQuery: ["stream_mode"],
      responses: { 200: "Server-sent events; a run not found (or not the caller's) is one `error` event saying 404", 422: "Invalid id or query" },
      handler: async (c, { query }) => {
        const runId = uuidParam(c, "run_id");
        return joinStream(c, () => runs.get(undefined, runId, accessOf(c)), true, query);
      },
    }),
  ];

  /**
   * Joining opens the stream before the run is looked up, as on the official servers: a run that
   * is not there, or not the caller's, is a stream of one `error` event whose message starts with
   * 404 (what their clients, and the reference's tests, look for), not an HTTP 404.
   */
  async function joinStream(
    c: Context<AppEnv>,
    lookUp: () => Promise<Run>,
    stateless: boolean,
    query: { cancel_on_disconnect?: boolean; stream_mode?: string[] },
  ) {
    let run: Run;
    try {
      run = await lookUp();
    } catch (err) {
      if (!(err instanceof GantryError) || err.kind !== "not_found") throw err;
      return sseResponse(c, notFoundEvent(err));
    }
    const lastEventId = parseLastEventId(requestHeader(c, "last-event-id"));
    return stream(c, run, {
      stateless,
      ...(lastEventId !== undefined ? { after: lastEventId } : {}),
      ...(query.stream_mode ? { modes: query.stream_mode } : {}),
      cancelOnDisconnect: query.cancel_on_disconnect ?? false,
    });
  }
}

async function* notFoundEvent(err: GantryError): AsyncGenerator<SseEvent> {
  yield { event: "error", data: { error: "NotFound", message: `404: ${err.message}` } };
}
