// A2A as a face on the run engine: every method is a call to the domain services with the
// caller's access, so custom auth applies as on the classic API, and nothing is kept in this
// process (any replica answers for any task). A message starts a run on the thread its contextId
// names (created when absent); a task is that run, read back through the run and output services.
import type { Access } from "../domain/access.js";
import type { AssistantService } from "../domain/assistants.js";
import type { RunOutputService } from "../domain/run-output.js";
import type { RunService } from "../domain/runs.js";
import type { Assistant, Json, JsonObject, Run, StreamMode } from "../domain/records.js";
import type { RunCreate } from "../domain/run-request.js";
import { GantryError, notFound } from "../errors.js";
import { isUuid, newId } from "../ids.js";
import { describeGraphSchemas } from "../runtime/graph-info.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import { agentCard } from "./agent-card.js";
import { JSONRPC_CODES, JsonRpcError, invalidParams } from "./json-rpc.js";
import type { AgentCard, MessageSendParams, StreamEvent, Task, TaskQueryParams } from "./protocol.js";
import { answerChunk, artifactUpdate, inputFromMessage, resumeFromMessage, statusUpdate, taskOf, taskState } from "./task-mapping.js";

export interface A2aCaller {
  access?: Access;
  /** The request's headers, for http.configurable_headers as on any run. */
  headers: Record<string, string>;
}

export interface A2aService {
  /**
   * The assistant behind /a2a/{id} (a UUID or a graph id; anything else is not found), looked up
   * as a run looks it up: under custom auth a graph's own assistant serves whoever may run it.
   */
  assistant(idOrGraphId: string, access?: Access): Promise<Assistant>;
  card(assistant: Assistant, endpointUrl: string): Promise<AgentCard>;
  send(assistant: Assistant, params: MessageSendParams, caller: A2aCaller): Promise<Task>;
  /** The task first, then its status and artifact updates; the last event is a final status update. */
  stream(assistant: Assistant, params: MessageSendParams, caller: A2aCaller, signal: AbortSignal): Promise<AsyncGenerator<StreamEvent>>;
  /** The stream of a task already started (a client reconnecting), from its start. */
  resubscribe(assistant: Assistant, taskId: string, caller: A2aCaller, signal: AbortSignal): Promise<AsyncGenerator<StreamEvent>>;
  getTask(assistant: Assistant, params: TaskQueryParams, caller: A2aCaller): Promise<Task>;
  cancelTask(assistant: Assistant, taskId: string, caller: A2aCaller): Promise<Task>;
}

export interface A2aServiceDeps {
  assistants: AssistantService;
  runs: RunService;
  output: RunOutputService;
  graphs: GraphRegistry;
}

export function a2aService(deps: A2aServiceDeps): A2aService {
  const { assistants, runs, output, graphs } = deps;
  // A graph's channels are fixed unless it is a factory of the config; ask each such graph once.
  const messagesByGraph = new Map<string, Promise<boolean>>();

  const hasMessages = (assistant: Assistant): Promise<boolean> => {
    const entry = graphs.get(assistant.graph_id);
    const cached = entry.factory ? undefined : messagesByGraph.get(assistant.graph_id);
    if (cached) return cached;
    const answer = (async () => {
      const graph = await entry.resolve({ ...assistant.config, configurable: assistant.config.configurable as JsonObject | undefined });
      const schemas = await describeGraphSchemas(assistant.graph_id, graph);
      const properties = (schema: unknown) => (schema as { properties?: Record<string, unknown> } | null | undefined)?.properties ?? {};
      return "messages" in properties(schemas.input_schema ?? schemas.state_schema);
    })();
    if (!entry.factory) messagesByGraph.set(assistant.graph_id, answer);
    return answer;
  };

  const start = async (assistant: Assistant, params: MessageSendParams, caller: A2aCaller, streamModes?: StreamMode[]): Promise<Run> => {
    const { message } = params;
    const { contextId } = message;
    if (contextId !== undefined && !isUuid(contextId)) {
      throw invalidParams(
        `params.message.contextId '${contextId}' is not a context of this server: contexts are thread ids (UUIDs); omit it to start a new one`,
      );
    }
    const resumed = message.taskId !== undefined ? await resumeOf(assistant, message.taskId, contextId, caller.access) : undefined;
    const threadId = resumed?.threadId ?? contextId ?? newId();
    const run: RunCreate = {
      assistant_id: assistant.assistant_id,
      if_not_exists: "create",
      ...(streamModes ? { stream_mode: streamModes } : {}),
      ...(params.metadata ? { metadata: params.metadata as JsonObject } : {}),
    };
    if (resumed?.waiting) run.command = { resume: resumeFromMessage(message) as Json };
    else run.input = inputFromMessage(message, { graphId: assistant.graph_id, hasMessages: await hasMessages(assistant) });
    try {
      return await runs.create(threadId, run, { headers: caller.headers }, caller.access);
    } catch (err) {
      // The assistant was found already: a miss here is the thread, one the caller may not see.
      if (err instanceof GantryError && err.kind === "not_found") throw invalidParams(`Context ${threadId} not found`);
      throw err;
    }
  };

  /**
   * The thread of the task a message names, and whether that task waits for input: a reply to an
   * input-required task resumes it, a message naming any other task just continues its context.
   */
  const resumeOf = async (assistant: Assistant, taskId: string, contextId: string | undefined, access: Access | undefined) => {
    const earlier = await findRun(assistant, taskId, access);
    if (contextId !== undefined && earlier.thread_id !== contextId) {
      throw invalidParams(`Task ${taskId} belongs to context ${earlier.thread_id}, not to context ${contextId}`);
    }
    const finished = earlier.status !== "pending" && earlier.status !== "running";
    const waiting = finished && taskState(earlier, await output.output(earlier)) === "input-required";
    return { threadId: earlier.thread_id, waiting };
  };

  const findRun = async (assistant: Assistant, taskId: string, access: Access | undefined): Promise<Run> => {
    const missing = () => new JsonRpcError(JSONRPC_CODES.taskNotFound, `Task ${taskId} not found`);
    if (!isUuid(taskId)) throw missing();
    let run: Run;
    try {
      run = await runs.get(undefined, taskId, access);
    } catch (err) {
      if (err instanceof GantryError && err.kind === "not_found") throw missing();
      throw err;
    }
    // Tasks belong to the agent (assistant) that ran them.
    if (run.assistant_id !== assistant.assistant_id) throw missing();
    return run;
  };

  const finishedTask = async (run: Run, access: Access | undefined, historyLength?: number, signal?: AbortSignal): Promise<Task> => {
    const values = await output.output(run, signal);
    // The outcome is recorded before the run's log ends, so the run read now is final.
    const finished = await runs.get(run.thread_id, run.run_id, access);
    return taskOf(finished, values, historyLength !== undefined ? { historyLength } : {});
  };

  /**
   * A task as a stream, read from its run's event log: the task as it stands, `working` once the
   * run shows life, the answer's pieces as they are written (when the run records them), then the
   * whole answer and a final status. A finished task is its final state at once.
   */
  const follow = async (run: Run, access: Access | undefined, historyLength: number | undefined, signal: AbortSignal): Promise<AsyncGenerator<StreamEvent>> => {
    const finished = run.status !== "pending" && run.status !== "running";
    const events = finished ? undefined : await output.events(run, { after: "-1", modes: ["values", "messages-tuple"], signal });
    return (async function* () {
      if (events) {
        const current = taskOf(run, null);
        yield current;
        let working = run.status === "running";
        let streamed = false;
        for await (const event of events) {
          if (!working) {
            working = true;
            yield statusUpdate({ ...current, status: { state: "working", timestamp: new Date().toISOString() } }, false);
          }
          const chunk = answerChunk(run.run_id, event);
          if (!chunk) continue;
          yield artifactUpdate(current, chunk, { append: streamed, lastChunk: false });
          streamed = true;
        }
        if (signal.aborted) return;
      }
      const task = await finishedTask(run, access, historyLength, signal);
      if (!events) yield task;
      for (const artifact of task.artifacts ?? []) yield artifactUpdate(task, artifact);
      yield statusUpdate(task, true);
    })();
  };

  return {
    async assistant(idOrGraphId, access) {
      try {
        return await assistants.getForRun(idOrGraphId, access);
      } catch (err) {
        if (err instanceof GantryError && err.kind === "invalid") throw notFound(`Assistant ${idOrGraphId} not found`);
        throw err;
      }
    },

    async card(assistant, endpointUrl) {
      const description = graphs.get(assistant.graph_id).spec.description;
      return agentCard(assistant, { endpointUrl, hasMessages: await hasMessages(assistant), ...(description ? { graphDescription: description } : {}) });
    },

    async send(assistant, params, caller) {
      const run = await start(assistant, params, caller);
      if (params.configuration?.blocking === false) return taskOf(run, null);
      return finishedTask(run, caller.access, params.configuration?.historyLength);
    },

    async stream(assistant, params, caller, signal) {
      // The log then holds the answer's tokens too, for this stream and any resubscription.
      const run = await start(assistant, params, caller, ["values", "messages-tuple"]);
      return follow(run, caller.access, params.configuration?.historyLength, signal);
    },

    async resubscribe(assistant, taskId, caller, signal) {
      return follow(await findRun(assistant, taskId, caller.access), caller.access, undefined, signal);
    },

    async getTask(assistant, params, caller) {
      const run = await findRun(assistant, params.id, caller.access);
      if (run.status === "pending" || run.status === "running") {
        return taskOf(run, null, params.historyLength !== undefined ? { historyLength: params.historyLength } : {});
      }
      return finishedTask(run, caller.access, params.historyLength);
    },

    async cancelTask(assistant, taskId, caller) {
      const run = await findRun(assistant, taskId, caller.access);
      if (run.status !== "pending" && run.status !== "running") {
        throw new JsonRpcError(JSONRPC_CODES.taskNotCancelable, `Task ${taskId} has already finished (${run.status}) and cannot be canceled`);
      }
      // A run that finished between the read and the cancel is reported as it ended.
      await runs.cancel(run.thread_id, run.run_id, "interrupt", caller.access);
      return finishedTask(run, caller.access);
    },
  };
}

/**
 * The JSON-RPC error for a refusal from the domain. Auth refusals and outages are not here: they
 * keep their HTTP answers, as on every other route.
 */
export function jsonRpcErrorOf(err: unknown): JsonRpcError | undefined {
  if (err instanceof JsonRpcError) return err;
  if (!(err instanceof GantryError)) return undefined;
  switch (err.kind) {
    case "malformed":
    case "invalid":
    case "too_large":
      return invalidParams(err.message);
    case "not_found":
      return new JsonRpcError(JSONRPC_CODES.taskNotFound, err.message);
    case "unsupported":
      return new JsonRpcError(JSONRPC_CODES.unsupportedOperation, err.message);
    case "conflict":
    case "busy":
      return new JsonRpcError(JSONRPC_CODES.invalidRequest, err.message);
    default:
      return undefined;
  }
}
