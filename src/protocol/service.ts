// The thread-centric streaming protocol (v2) as a face on the one run engine: commands become
// RunService / ThreadStateService calls made with the caller's access, and a thread's events are
// read from its protocol log, which the worker writes (queue/protocol-recorder.ts). Nothing here
// holds per-thread state, so any replica answers any client and a reconnect can land anywhere.
// Transports (SSE routes, WebSocket) translate their frames to these calls and own nothing else.
import type { AgentTreeNode, Command, CommandResponse, ErrorResponse, Event, EventStreamRequest, ResultData } from "@langchain/protocol";
import type { Access } from "../domain/access.js";
import type { RunOutputService } from "../domain/run-output.js";
import type { RunCreate } from "../domain/run-request.js";
import type { RunService } from "../domain/runs.js";
import type { ThreadStateService } from "../domain/thread-state.js";
import type { ThreadService } from "../domain/threads.js";
import { AuthRejection, GantryError } from "../errors.js";
import type { Json, JsonObject, StreamMode } from "../storage/records.js";
import { AgentGetTreeParams, errorResponse, InputRespondParams, parseParams, RunStartParams, StateGetParams } from "./commands.js";
import { matchesFilter } from "./filter.js";
import { agentTree } from "./tree.js";

/** Who sends a command: their access under custom auth, and the request headers (http.configurable_headers). */
export interface ProtocolCaller {
  access?: Access;
  headers: Record<string, string>;
}

export type ProtocolReply = CommandResponse | ErrorResponse;

export interface ProtocolService {
  /**
   * Answers one command on a thread. A problem with the command itself (bad params, an unknown
   * method, nothing to resume) is answered as the protocol's error response. A problem with the
   * request as a whole throws, as the classic routes do, for the transport to map: a GantryError
   * (`not_found` for an unknown thread, `conflict` for a busy thread under `reject`, …) or an
   * AuthRejection from the project's auth handlers. `subscription.*` belongs to the WebSocket
   * transport, which keeps its subscriptions itself and reads them through `events`.
   */
  command(threadId: string, command: Command, caller: ProtocolCaller): Promise<ProtocolReply>;
  /**
   * The thread's events that match `filter`: every one still held (events after `filter.since`
   * when given), then live ones until the signal aborts. A thread nobody can see throws
   * `not_found` (or the auth handler's refusal); a thread that does not exist yet is waited for,
   * since `run.start` creates it, and the stream ends if it turns out not to be the caller's.
   * The generator pulls from the log only as fast as it is iterated.
   */
  events(threadId: string, filter: EventStreamRequest, options: { access?: Access; signal?: AbortSignal }): Promise<AsyncGenerator<Event>>;
  /**
   * May the caller follow the thread? Throws `not_found` for a thread that exists but is not the
   * caller's (or the auth handler's refusal); a thread that does not exist yet may be followed,
   * since `run.start` creates it. What a transport checks before it opens a connection.
   */
  open(threadId: string, access?: Access): Promise<void>;
}

export interface ProtocolServiceDeps {
  runs: RunService;
  threads: ThreadService;
  state: ThreadStateService;
  output: RunOutputService;
}

/** What a protocol run streams into its run's own log, for join/wait and the classic streams (queue/protocol-recorder.ts). */
export const PROTOCOL_RUN_STREAM_MODES: StreamMode[] = ["values", "updates", "custom"];

export function protocolService(deps: ProtocolServiceDeps): ProtocolService {
  const { runs, threads, state, output } = deps;

  const meta = async (threadId: string) => ({ thread_id: threadId, applied_through_seq: (await output.lastProtocolEvent(threadId))?.seq ?? 0 });
  const success = async (threadId: string, id: number, result: ResultData): Promise<CommandResponse> => ({
    type: "success",
    id,
    result,
    meta: await meta(threadId),
  });

  /** Interrupts waiting on the thread, by id; none for a thread that does not exist yet. */
  const pendingInterrupts = async (threadId: string, access?: Access): Promise<string[]> => {
    try {
      const current = await state.get(threadId, { subgraphs: true }, access);
      return current.tasks.flatMap((task) =>
        task.interrupts.flatMap((i) => (typeof (i as { id?: unknown }).id === "string" ? [(i as { id: string }).id] : [])),
      );
    } catch (err) {
      if (err instanceof GantryError && err.kind === "not_found") return [];
      throw err;
    }
  };

  const startRun = (threadId: string, body: RunCreate, caller: ProtocolCaller) =>
    runs.create(threadId, { ...body, protocol: true }, { headers: caller.headers }, caller.access);

  const handlers: Record<string, (threadId: string, command: Command, caller: ProtocolCaller) => Promise<ProtocolReply>> = {
    async "run.start"(threadId, command, caller) {
      const parsed = parseParams(RunStartParams, command);
      if ("message" in parsed) return errorResponse(command.id, "invalid_argument", parsed.message);
      const p = parsed.params;
      // On a thread waiting at an interrupt, the input answers it (the protocol's run.start state machine).
      const resume = p.input != null && (await pendingInterrupts(threadId, caller.access)).length > 0;
      const run = await startRun(
        threadId,
        {
          ...runSettings(p.config),
          assistant_id: p.assistant_id,
          input: resume ? null : ((p.input ?? null) as Json),
          ...(resume ? { command: { resume: p.input as Json } } : {}),
          ...(p.metadata ? { metadata: p.metadata as JsonObject } : {}),
          ...(p.context ? { context: p.context as JsonObject } : {}),
          multitask_strategy: p.multitask_strategy ?? p.multitaskStrategy ?? "enqueue",
          if_not_exists: "create",
        },
        caller,
      );
      return success(threadId, command.id, { run_id: run.run_id });
    },

    async "input.respond"(threadId, command, caller) {
      const parsed = parseParams(InputRespondParams, command);
      if ("message" in parsed) return errorResponse(command.id, "invalid_argument", parsed.message);
      const p = parsed.params;
      const thread = await threads.get(threadId, {}, caller.access);
      const pending = await pendingInterrupts(threadId, caller.access);
      if (pending.length === 0) return errorResponse(command.id, "no_such_run", `Thread ${threadId} has no interrupt waiting for input`);
      const assistantId = thread.metadata.assistant_id;
      if (typeof assistantId !== "string") return errorResponse(command.id, "no_such_run", `Thread ${threadId} has never run; call run.start first`);
      const answers = p.responses ?? [{ interrupt_id: p.interrupt_id!, response: p.response }];
      const resume: JsonObject = Object.fromEntries(answers.map((a) => [a.interrupt_id, a.response as Json]));
      await startRun(
        threadId,
        {
          ...runSettings(p.config),
          assistant_id: assistantId,
          command: {
            resume,
            ...(p.update !== undefined ? { update: p.update as JsonObject } : {}),
            ...(p.goto !== undefined ? { goto: p.goto as string } : {}),
          },
          ...(p.metadata ? { metadata: p.metadata as JsonObject } : {}),
          ...(p.strict_resume ? { strict_resume: true } : {}),
          multitask_strategy: "enqueue",
        },
        caller,
      );
      return success(threadId, command.id, {});
    },

    async "state.get"(threadId, command, caller) {
      const parsed = parseParams(StateGetParams, command);
      if ("message" in parsed) return errorResponse(command.id, "invalid_argument", parsed.message);
      const current = await state.get(threadId, { subgraphs: true }, caller.access);
      const values = (current.values ?? {}) as Record<string, unknown>;
      const keys = parsed.params.keys;
      const checkpoint = current.checkpoint?.checkpoint_id
        ? { id: current.checkpoint.checkpoint_id, ...(current.checkpoint.checkpoint_ns ? { ns: current.checkpoint.checkpoint_ns } : {}) }
        : undefined;
      return success(threadId, command.id, {
        values: keys ? Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key))) : values,
        ...(checkpoint ? { checkpoint } : {}),
      });
    },

    async "agent.getTree"(threadId, command, caller) {
      const parsed = parseParams(AgentGetTreeParams, command);
      if ("message" in parsed) return errorResponse(command.id, "invalid_argument", parsed.message);
      const thread = await threads.get(threadId, {}, caller.access);
      const held: Event[] = [];
      for await (const event of await output.protocolEvents(threadId, { untilNow: true })) held.push(event);
      const graphName = typeof thread.metadata.graph_id === "string" ? thread.metadata.graph_id : "root";
      const tree: AgentTreeNode = agentTree(held, graphName);
      return success(threadId, command.id, { tree });
    },
  };

  const notHere = (method: string, why: string) => async (_threadId: string, command: Command) =>
    errorResponse(command.id, "not_supported", `${method} ${why}`);
  for (const method of ["subscription.subscribe", "subscription.unsubscribe", "subscription.reconnect"]) {
    handlers[method] = notHere(method, "is a WebSocket command; over HTTP, POST /threads/{thread_id}/stream/events with the filter instead");
  }
  for (const method of ["input.inject", "state.listCheckpoints", "state.fork"]) handlers[method] = notHere(method, "is not supported by this server yet");

  return {
    async command(threadId, command, caller) {
      const handler = Object.hasOwn(handlers, command.method) ? handlers[command.method] : undefined;
      if (!handler) return errorResponse(command.id, "unknown_command", `Unknown protocol command: ${command.method}`);
      return handler(threadId, command, caller);
    },

    async open(threadId, access) {
      await visible(threads, threadId, access);
    },

    async events(threadId, filter, { access, signal }) {
      const exists = await visible(threads, threadId, access);
      const source = await output.protocolEvents(threadId, signal ? { signal } : {});
      return (async function* () {
        let checked = exists;
        for await (const event of source) {
          // The thread was created after the reader came: it must be one the caller may read.
          if (!checked) {
            if (!(await visible(threads, threadId, access))) return;
            checked = true;
          }
          if (matchesFilter(event, filter)) yield event;
        }
      })();
    },
  };
}

/**
 * True when the caller can read the thread, false when it does not exist; throws `not_found` when
 * it exists but is not theirs (under custom auth), and the auth handler's refusal as it is.
 */
async function visible(threads: ThreadService, threadId: string, access: Access | undefined): Promise<boolean> {
  if (await found(threads.get(threadId, {}, access))) return true;
  if (access && (await found(threads.get(threadId, {})))) throw new GantryError("not_found", `Thread ${threadId} not found`);
  return false;
}

const found = (lookup: Promise<unknown>): Promise<boolean> =>
  lookup.then(
    () => true,
    (err: unknown) => {
      if (err instanceof GantryError && err.kind === "not_found") return false;
      throw err;
    },
  );

/** The run settings a run.start or input.respond `config` carries: a fork's checkpoint (the SDK's forkFrom) rides in its configurable. */
function runSettings(
  config: Record<string, unknown> | undefined,
): Pick<RunCreate, "config" | "checkpoint_id" | "stream_mode" | "stream_subgraphs" | "stream_resumable"> {
  const configurable = (config?.configurable ?? undefined) as Record<string, unknown> | undefined;
  const checkpointId = typeof configurable?.checkpoint_id === "string" ? configurable.checkpoint_id : undefined;
  const rest = checkpointId
    ? { ...config, configurable: Object.fromEntries(Object.entries(configurable!).filter(([key]) => key !== "checkpoint_id")) }
    : config;
  return {
    ...(rest ? { config: rest as RunCreate["config"] } : {}),
    ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
    stream_mode: PROTOCOL_RUN_STREAM_MODES,
    stream_subgraphs: true,
    stream_resumable: true,
  };
}

/** A thrown error as the protocol's error response (for the WebSocket transport, which has no status line). */
export function protocolErrorOf(id: number | null, err: unknown): ErrorResponse {
  if (err instanceof AuthRejection) return errorResponse(id, "permission_denied", err.message);
  if (err instanceof GantryError) {
    const code =
      err.kind === "forbidden" || err.kind === "unauthenticated" ? "permission_denied" : err.kind === "unavailable" ? "unknown_error" : "invalid_argument";
    return errorResponse(id, code, err.message);
  }
  return errorResponse(id, "unknown_error", "Internal error; the server log has the details");
}
