// Run rules: resolving the assistant, building the stored invocation (kwargs) with the enriched
// configurable, the thread's multitask strategy (applied atomically by storage), and cancellation.
import { conflict, invalid, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { Logger } from "../logging.js";
import { nodeNamesWithSubgraphs } from "../runtime/graph-info.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import type { CheckpointStore } from "../storage/checkpoint-ports.js";
import type { CancelAction, ClaimedRun, EnqueueResult, NewRunOnNewThread, RunRepo, StoppedRunWebhook } from "../storage/run-ports.js";
import type { AuthFilter } from "../storage/auth-filter.js";
import type { ThreadRepo, ThreadTtlInput } from "../storage/ports.js";
import type { ThreadTtlDefaults } from "./threads.js";
import type { Assistant, Json, JsonObject, Run, RunStatus, Thread } from "../storage/records.js";
import { buildRunKwargs, type RunCreate } from "./run-request.js";
import { authConfigurable, authField, authorize, type Access } from "./access.js";
import type { AssistantService } from "./assistants.js";
import { webhookDelivery } from "../webhooks/payload.js";
import type { WebhookUrlPolicy } from "../config/webhook-config.js";
import { checkWebhookTarget, type ResolveHost } from "../webhooks/webhook-url.js";

/**
 * A worker slot held while a run is created on this process: the run is claimed in its creating
 * transaction (EnqueueOptions.claimFor) and started here, or the slot is given back.
 */
export interface RunSlot {
  claimFor: { workerId: string; leaseMs: number };
  start(run: ClaimedRun): void;
  release(): void;
}

/** How the run service tells the queue about new runs and cancellations. */
export interface RunSignals {
  /** `claimed`: the run already has its worker, so no other needs waking. */
  created(run: Run, claimed: boolean): void | Promise<void>;
  /** A local worker's free slot, when this process runs a worker. */
  reserve?(): RunSlot | undefined;
  cancelRequested(runIds: string[], action: CancelAction): void;
  /** Pending runs that ended without ever starting: their readers must be released. */
  stopped(runIds: string[]): void | Promise<void>;
}

/**
 * `access` (custom auth): creating is `threads:create_run` (plus the assistant's check, see
 * AssistantService.getForRun), reading `threads:read`, cancelling `threads:update`, deleting
 * `threads:delete`; a run is seen only through a thread the filter allows, and carries its
 * creator in `configurable`.
 */
export interface RunService {
  create(threadId: string | null, body: RunCreate, request: { headers: Record<string, string> }, access?: Access): Promise<Run>;
  /**
   * Stateless runs created together, with no caller (a cron scheduler's occurrences; a cron's
   * creator rides in its config): the checks `create` makes, then one storage write for the lot.
   * Each answer is the run, or the error that refused it; a failed write rejects the whole call.
   * None is claimed at creation: the workers claim them in order.
   */
  createStateless(bodies: RunCreate[]): Promise<Array<Run | Error>>;
  get(threadId: string | undefined, runId: string, access?: Access): Promise<Run>;
  list(threadId: string, filter: { status?: RunStatus }, page: { limit: number; offset: number }, access?: Access): Promise<Run[]>;
  delete(threadId: string | undefined, runId: string, access?: Access): Promise<void>;
  cancel(threadId: string | undefined, runId: string, action: CancelAction, access?: Access): Promise<Run>;
  cancelMany(target: { threadId: string; runIds: string[] } | { status: "pending" | "running" | "all" }, action: CancelAction, access?: Access): Promise<void>;
  /** Refuses a webhook URL that a run could not be created with (crons check theirs up front). */
  checkWebhook(url: string): Promise<void>;
}

export interface RunServiceDeps {
  runs: RunRepo;
  checkpoints: CheckpointStore;
  threads: ThreadRepo;
  assistants: AssistantService;
  graphs: GraphRegistry;
  signals: RunSignals;
  webhookPolicy?: WebhookUrlPolicy;
  /** http.disable_webhooks: a webhook is stored on the run but never called, so its URL is not judged. */
  webhooksDisabled?: boolean;
  /** Resolves a webhook's host name for the address checks; without it only literal addresses are judged. */
  resolveHost?: ResolveHost;
  /** Picks the request headers that reach `configurable` (http.configurable_headers). */
  configurableHeaders: (headers: Record<string, string>) => Record<string, string>;
  /** Where a run's harmless oddities are reported (breakpoints on nodes the graph lacks). */
  log?: Pick<Logger, "warn">;
  /** checkpointer.ttl's default, for a thread a run creates (if_not_exists: "create"). */
  threadTtl?: ThreadTtlDefaults;
}

const unresolvable: ResolveHost = () => Promise.reject(new Error("no resolver"));

/** The webhook of a run cancelled before it started: it ends `interrupted` at the moment of the cancel. */
const stoppedRunWebhook: StoppedRunWebhook = (run) => {
  const now = new Date();
  return webhookDelivery({ run, outcome: { status: "interrupted", thread_status: "idle" }, startedAt: now, endedAt: now });
};

export function runService(deps: RunServiceDeps): RunService {
  const { runs, threads, assistants, graphs, signals } = deps;
  const webhookFor = deps.webhooksDisabled ? undefined : stoppedRunWebhook;
  const defaultTtl: ThreadTtlInput | undefined =
    deps.threadTtl?.defaultTtl !== undefined ? { strategy: deps.threadTtl.strategy, ttl_minutes: deps.threadTtl.defaultTtl } : undefined;

  const mustGet = async (threadId: string | undefined, runId: string, access?: Access): Promise<Run> => {
    const auth = await authorize(access, "threads", "read", { thread_id: threadId ?? null, run_id: runId });
    const run = await runs.get(runId, threadId, auth);
    if (!run) throw notFound(threadId ? `Run ${runId} not found on thread ${threadId}` : `Run ${runId} not found`);
    return run;
  };

  const checkWebhook = async (url: string) => {
    if (!deps.webhooksDisabled) await checkWebhookTarget(url, deps.webhookPolicy ?? {}, deps.resolveHost ?? unresolvable);
  };

  /** The invocation a run stores, once the fields it names (checkpoint, nodes) are checked. */
  const runKwargs = async (
    body: RunCreate,
    assistant: Assistant,
    at: { threadId: string | null; targetThread: string; runId: string; headers: Record<string, string>; access: Access | undefined },
  ) => {
    const { access } = at;
    const checkpoint = await startingCheckpoint(deps.checkpoints, at.threadId, at.targetThread, body);
    const config = mergeConfig(assistant.config, body.config);
    const kwargs = buildRunKwargs(body, {
      assistant,
      config,
      // The creator, stored with the run: a background run acts for them, whatever the client sent.
      extraConfigurable: { ...deps.configurableHeaders(at.headers), ...(access ? authConfigurable(access.user) : {}), ...userIdOf(config, access) },
      metadata: runConfigMetadata(assistant, config, body.metadata),
      runId: at.runId,
      threadId: at.targetThread,
      temporary: at.threadId === null && (body.on_completion ?? "delete") === "delete",
      ...(checkpoint ? { checkpoint } : {}),
      headers: at.headers,
    });
    const unknownBreakpoints = await checkNodes(graphs, assistant.graph_id, kwargs.config, body);
    if (unknownBreakpoints) {
      deps.log?.warn("interrupt_before/interrupt_after name nodes that neither the graph nor its subgraphs have; those never interrupt", {
        graph_id: assistant.graph_id,
        run_id: at.runId,
        unknown_nodes: unknownBreakpoints.unknown,
        graph_nodes: unknownBreakpoints.known,
      });
    }
    return kwargs;
  };

  return {
    checkWebhook,
    async create(threadId, input, request, access) {
      // A stateless run starts on a fresh thread, where no interrupt waits for the value: LangGraph
      // would fail the run mid-way (the official server answers 200 and an error), so refuse it here.
      if (threadId === null && input.command?.resume !== undefined) {
        throw invalid(
          "command.resume needs a thread: a stateless run has no interrupted state to resume. Create the run on the interrupted thread (POST /threads/{thread_id}/runs, or client.runs.wait(threadId, …))",
        );
      }
      const body = { ...input, metadata: { ...(input.metadata ?? {}) } };
      const found = await assistants.getForRunCached(body.assistant_id, access);
      let assistant = found.assistant;
      const stateless = threadId === null;
      if (body.webhook !== undefined) await checkWebhook(body.webhook);
      const runId = newId();
      const targetThread = threadId ?? newId();
      let threadAuth: AuthFilter | undefined;
      if (access) {
        const value: Record<string, unknown> = {
          thread_id: threadId,
          assistant_id: assistant.assistant_id,
          run_id: runId,
          status: "pending",
          metadata: body.metadata,
          prevent_insert_if_inflight: body.multitask_strategy === "reject",
          multitask_strategy: body.multitask_strategy ?? null,
          if_not_exists: body.if_not_exists ?? null,
          after_seconds: body.after_seconds ?? null,
          kwargs: { input: body.input ?? null, command: body.command ?? null, config: body.config ?? {}, context: body.context ?? {} },
        };
        threadAuth = await access.authorize("threads", "create_run", value);
        body.metadata = (value.metadata ?? {}) as JsonObject;
      }
      const multitask = stateless ? "enqueue" : (body.multitask_strategy ?? "enqueue");
      const availableAt = new Date(Date.now() + (body.after_seconds ?? 0) * 1000);
      const slot = signals.reserve?.();
      /** Stores the run `assistant` makes; a cached assistant only while it is still the assistant's current row. */
      const enqueue = async (assistant: Assistant, cached: boolean) => {
        const kwargs = await runKwargs(body, assistant, { threadId, targetThread, runId, headers: request.headers, access });
        return runs.enqueue(
          {
            run_id: runId,
            thread_id: targetThread,
            assistant_id: assistant.assistant_id,
            metadata: body.metadata ?? {},
            kwargs,
            multitask_strategy: stateless ? null : multitask,
            available_at: availableAt,
          },
          {
            threadMetadata: { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
            graphId: assistant.graph_id,
            multitask,
            ...(threadAuth ? { threadAuth } : {}),
            ...(webhookFor ? { webhookFor } : {}),
            ...(slot ? { claimFor: slot.claimFor } : {}),
            ...(stateless || body.if_not_exists === "create"
              ? { createThread: { metadata: body.metadata ?? {}, temporary: kwargs.temporary, ...(!stateless && defaultTtl ? { ttl: defaultTtl } : {}) } }
              : {}),
            ...(cached ? { assistantVersion: { version: assistant.version, updated_at: assistant.updated_at } } : {}),
          },
        );
      };
      let result: EnqueueResult;
      try {
        result = await enqueue(assistant, found.cached);
        // Another process changed or deleted the cached assistant: read it and enqueue as a run
        // created without the cache would. A fresh read goes unchecked, so this loops once at most.
        while (result.kind === "assistant_changed") {
          assistant = await assistants.getForRun(body.assistant_id, access);
          result = await enqueue(assistant, false);
        }
      } catch (err) {
        slot?.release();
        throw err;
      }
      if (result.kind !== "created" || !result.claimed) slot?.release();
      if (result.kind === "thread_missing") throw notFound(`Thread ${targetThread} not found (pass if_not_exists: "create" to create it)`);
      if (result.kind === "busy") {
        throw conflict(`Thread ${targetThread} is busy with another run, and multitask_strategy is "reject"`);
      }
      if (result.kind === "wrong_graph") throw wrongGraph(targetThread, result.threadGraph, assistant);
      // Stored as running under this worker's lease: it starts (and is heartbeated) before anything
      // else is awaited, so a stalled Redis below cannot let the lease lapse before the run began.
      if (result.claimed) slot?.start(result.claimed);
      if (result.cancelled.length > 0) signals.cancelRequested(result.cancelled, multitask === "rollback" ? "rollback" : "interrupt");
      if (result.stopped.length > 0) await signals.stopped(result.stopped);
      await signals.created(result.run, result.claimed !== undefined);
      return result.run;
    },
    async createStateless(inputs) {
      if (inputs.length === 0) return [];
      // Occurrences of one cron, or of crons of one assistant, share the reads and checks these make.
      const assistantsById = new Map<string, Promise<Assistant>>();
      const webhooksChecked = new Map<string, Promise<void>>();
      const once = <T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> => {
        let found = cache.get(key);
        if (!found) cache.set(key, (found = make()));
        return found;
      };
      const prepared = await Promise.all(
        inputs.map(async (input): Promise<NewRunOnNewThread | Error> => {
          try {
            const body = { ...input, metadata: { ...(input.metadata ?? {}) } };
            const assistant = await once(assistantsById, body.assistant_id, () => assistants.getForRun(body.assistant_id));
            const webhook = body.webhook;
            if (webhook !== undefined) await once(webhooksChecked, webhook, () => checkWebhook(webhook));
            const runId = newId();
            const threadId = newId();
            const kwargs = await runKwargs(body, assistant, { threadId: null, targetThread: threadId, runId, headers: {}, access: undefined });
            return {
              run: {
                run_id: runId,
                thread_id: threadId,
                assistant_id: assistant.assistant_id,
                metadata: body.metadata,
                kwargs,
                multitask_strategy: null,
                available_at: new Date(Date.now() + (body.after_seconds ?? 0) * 1000),
              },
              // The run's own metadata wins over graph_id/assistant_id on its new thread, as in create.
              threadMetadata: { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id, ...body.metadata },
            };
          } catch (err) {
            return err instanceof Error ? err : new Error(String(err));
          }
        }),
      );
      const created = await runs.enqueueOnNewThreads(prepared.filter((p): p is NewRunOnNewThread => !(p instanceof Error)));
      await Promise.all(created.map((run) => signals.created(run, false)));
      const byId = new Map(created.map((run) => [run.run_id, run]));
      return prepared.map((p) => (p instanceof Error ? p : (byId.get(p.run.run_id) ?? conflict(`Thread ${p.run.thread_id} already exists`))));
    },
    get: (threadId, runId, access) => mustGet(threadId, runId, access),
    async list(threadId, filter, page, access) {
      const auth = await authorize(access, "threads", "read", { thread_id: threadId });
      if (!(await threads.get(threadId, authField(auth)))) throw notFound(`Thread ${threadId} not found`);
      return runs.list(threadId, filter, page, auth);
    },
    async delete(threadId, runId, access) {
      const auth = await authorize(access, "threads", "delete", { thread_id: threadId ?? null, run_id: runId });
      const outcome = await runs.delete(runId, threadId, auth);
      if (outcome === null) throw notFound(`Run ${runId} not found`);
      if (outcome === "active") throw conflict(`Run ${runId} is still pending or running; cancel it before deleting it`);
    },
    async cancel(threadId, runId, action, access) {
      const auth = await authorize(access, "threads", "update", { thread_id: threadId ?? null, run_id: runId, action });
      const run = await runs.get(runId, threadId, auth);
      if (!run) throw notFound(threadId ? `Run ${runId} not found on thread ${threadId}` : `Run ${runId} not found`);
      // A run that finished before the cancel arrived is left as it is, and the cancel succeeds, as
      // on the official servers: a client cannot tell "already done" from "stopped just now".
      if (run.status !== "pending" && run.status !== "running") return run;
      const result = await runs.cancel({ runIds: [runId], ...(threadId ? { threadId } : {}) }, action, auth, webhookFor);
      if (result.flagged.length > 0) signals.cancelRequested(result.flagged, action);
      if (result.stopped.length > 0) await signals.stopped(result.stopped);
      return run;
    },
    async cancelMany(target, action, access) {
      const value = "status" in target ? { status: target.status, action } : { thread_id: target.threadId, run_ids: target.runIds, action };
      const auth = await authorize(access, "threads", "update", value);
      const result = await runs.cancel("status" in target ? target : { runIds: target.runIds, threadId: target.threadId }, action, auth, webhookFor);
      if (result.flagged.length > 0) signals.cancelRequested(result.flagged, action);
      if (result.stopped.length > 0) await signals.stopped(result.stopped);
    },
  };
}

/** The checkpoint a run starts from when the request names one; it must exist on the thread. */
async function startingCheckpoint(
  checkpoints: CheckpointStore,
  threadId: string | null,
  targetThread: string,
  body: RunCreate,
): Promise<{ checkpoint_id: string; checkpoint_ns?: string } | undefined> {
  const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
  if (checkpointId === undefined) return undefined;
  const ns = body.checkpoint?.checkpoint_ns;
  const exists =
    threadId !== null && (await checkpoints.saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns ?? "", checkpoint_id: checkpointId } }));
  if (!exists) throw notFound(`Checkpoint ${checkpointId} not found on thread ${targetThread}`);
  return { checkpoint_id: checkpointId, ...(ns !== undefined ? { checkpoint_ns: ns } : {}) };
}

/** A thread keeps to the graph of its first run: an assistant of another graph is refused. */
export function checkThreadGraph(thread: Thread, assistant: Assistant): void {
  const threadGraph = thread.metadata.graph_id;
  if (typeof threadGraph === "string" && threadGraph !== assistant.graph_id) throw wrongGraph(thread.thread_id, threadGraph, assistant);
}

const wrongGraph = (threadId: string, threadGraph: string, assistant: Assistant) =>
  invalid(`Thread ${threadId} belongs to graph '${threadGraph}', but assistant ${assistant.assistant_id} runs graph '${assistant.graph_id}'`);

/**
 * The platform's user_id: one the config sets (the run's, else its assistant's), else the caller's
 * identity under custom auth, else the creator a cron's config carries (its runs have no caller);
 * absent when there is none.
 */
function userIdOf(config: JsonObject, access: Access | undefined): { user_id?: Json } {
  const configurable = config.configurable as JsonObject | undefined;
  const given = configurable?.user_id;
  if (given !== undefined && given !== null && given !== "") return { user_id: given };
  if (access) return { user_id: access.user.identity };
  const creator = configurable?.langgraph_auth_user_id;
  return typeof creator === "string" ? { user_id: creator } : {};
}

/**
 * The metadata a run executes with, which every checkpoint it writes records: its assistant's,
 * then the config's, then the run's own, as the platform merges them (less the thread's metadata,
 * which would cost a read per run).
 */
function runConfigMetadata(assistant: Assistant, config: JsonObject, runMetadata: JsonObject | undefined): JsonObject {
  const configMetadata = config.metadata;
  return {
    ...assistant.metadata,
    ...(typeof configMetadata === "object" && configMetadata !== null && !Array.isArray(configMetadata) ? configMetadata : {}),
    ...runMetadata,
  };
}

export function mergeConfig(base: JsonObject, override: RunCreate["config"]): JsonObject {
  if (!override) return { ...base };
  return {
    ...base,
    ...(override as JsonObject),
    configurable: { ...((base.configurable as JsonObject | undefined) ?? {}), ...((override.configurable as JsonObject | undefined) ?? {}) },
  };
}

/**
 * A goto must name a node of the graph itself: LangGraph ignores a goto to a node it lacks, so the
 * run would quietly do something else. interrupt_before/after may name anything, as on the
 * official servers (a name no node has never interrupts); the names that match no node of the
 * graph or of its subgraphs are returned, with those that would, for the caller to report.
 */
export async function checkNodes(graphs: GraphRegistry, graphId: string, config: JsonObject, body: RunCreate): Promise<UnknownBreakpoints | undefined> {
  const breakpoints = [body.interrupt_before, body.interrupt_after].filter((v): v is string[] => Array.isArray(v)).flat();
  const gotos = gotoTargets(body.command?.goto).filter((n) => n !== "__end__");
  if (breakpoints.length === 0 && gotos.length === 0) return undefined;
  const graph = await graphs.get(graphId).resolve(config);
  const nodes = new Set(Object.keys((graph.nodes as Record<string, unknown> | undefined) ?? {}).filter((n) => n !== "__start__"));
  const unknownGotos = gotos.filter((n) => !nodes.has(n));
  if (unknownGotos.length > 0) {
    throw invalid(`command.goto names unknown node(s) ${unknownGotos.map((n) => `'${n}'`).join(", ")}; graph '${graphId}' has ${[...nodes].join(", ")}`);
  }
  if (breakpoints.length === 0) return undefined;
  const known = await nodeNamesWithSubgraphs(graph);
  const unknown = breakpoints.filter((n) => !known.has(n));
  return unknown.length > 0 ? { unknown, known: [...known] } : undefined;
}

export interface UnknownBreakpoints {
  unknown: string[];
  known: string[];
}

/** Node names in a command's goto: a name, a Send ({node, input}), or a list of either. */
function gotoTargets(goto: unknown): string[] {
  const one = (g: unknown): string[] =>
    typeof g === "string"
      ? [g]
      : g !== null && typeof g === "object" && typeof (g as { node?: unknown }).node === "string"
        ? [(g as { node: string }).node]
        : [];
  return Array.isArray(goto) ? goto.flatMap(one) : one(goto);
}
