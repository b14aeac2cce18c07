// Cron rules: a schedule is checked (expression, time zone, that it ever fires) and its next run
// date computed on every create and update, with the cron clock; the run fields are checked as a
// run's would be and kept as the payload; and an occurrence becomes a run through the run service,
// so multitask strategies, webhooks and temporary threads work exactly as for runs created over HTTP.
import { conflict, invalid, notFound } from "../errors.js";
import { newId } from "../ids.js";
import type { GraphRegistry } from "../runtime/graph-registry.js";
import type { Cron, CronFields, CronFilter, CronRepo, CronSortField, StoredCron } from "../storage/cron-ports.js";
import type { AuthFilter } from "../storage/auth-filter.js";
import type { Page, Paged, SortOrder, ThreadRepo } from "../storage/ports.js";
import type { Json, JsonObject, Run } from "../storage/records.js";
import { authConfigurable, authField, authorize, type Access } from "./access.js";
import type { AssistantService } from "./assistants.js";
import { nextRunDate, parseLiveSchedule, parseSchedule } from "./cron-schedule.js";
import type { RunCreate } from "./run-request.js";
import { checkNodes, checkThreadGraph, mergeConfig, type RunService } from "./runs.js";

/** The run fields a cron keeps in its payload; every run it creates starts from them. */
export const CRON_RUN_FIELDS = [
  "input",
  "config",
  "context",
  "webhook",
  "interrupt_before",
  "interrupt_after",
  "stream_mode",
  "stream_subgraphs",
  "stream_resumable",
  "durability",
  "checkpoint_during",
  "multitask_strategy",
  "if_not_exists",
] as const satisfies ReadonlyArray<keyof RunCreate>;

export type CronRunFields = Partial<Pick<RunCreate, (typeof CRON_RUN_FIELDS)[number]>>;

export interface CronCreate extends CronRunFields {
  assistant_id: string;
  schedule: string;
  timezone?: string;
  end_time?: Date;
  metadata?: Record<string, unknown>;
  enabled?: boolean;
  on_run_completed?: "delete" | "keep";
}

export interface CronPatch extends CronRunFields {
  schedule?: string;
  timezone?: string;
  /** null clears it. */
  end_time?: Date | null;
  /** Merged into the current metadata, key by key. */
  metadata?: Record<string, unknown>;
  enabled?: boolean;
  on_run_completed?: "delete" | "keep";
}

/**
 * `access` (custom auth) runs the `crons:*` handlers and confines every operation to the crons
 * whose metadata they allow. A cron created under auth keeps its creator (`user_id`, and the
 * user in its run config), so the runs it fires act for them.
 */
export interface CronService {
  create(threadId: string | null, body: CronCreate, access?: Access): Promise<Cron>;
  get(cronId: string, access?: Access): Promise<Cron>;
  update(cronId: string, patch: CronPatch, access?: Access): Promise<Cron>;
  delete(cronId: string, access?: Access): Promise<void>;
  /** `now` is the cron clock's time, which search's `select` may ask for. */
  search(filter: CronFilter, sort: { by: CronSortField; order: SortOrder }, page: Page, access?: Access): Promise<Paged<Cron> & { now: string }>;
  count(filter: CronFilter, access?: Access): Promise<number>;
  /**
   * Creates the run of one occurrence of each cron: the stateless crons' runs in one write. Each
   * answer is the run, or the error that refused it; a failed write of the stateless ones rejects.
   */
  fire(crons: Cron[]): Promise<Array<Run | Error>>;
}

export interface CronServiceDeps {
  crons: CronRepo;
  threads: ThreadRepo;
  assistants: AssistantService;
  runs: RunService;
  graphs: GraphRegistry;
  /** The time schedules are read at; the scheduler's clock. */
  clock: () => Date;
}

/** A concurrent write (another update, or a scheduler advancing the cron) makes an update start over; this many times at most. */
const UPDATE_ATTEMPTS = 5;

export function cronService(deps: CronServiceDeps): CronService {
  const { crons, threads, assistants, runs, graphs, clock } = deps;

  const mustGet = async (cronId: string, auth?: AuthFilter): Promise<StoredCron> => {
    const cron = await crons.get(cronId, auth);
    if (!cron) throw notFound(`Cron ${cronId} not found`);
    return cron;
  };

  /** The checks a run with these fields would meet at creation, made now rather than at the first occurrence. */
  const checkRunFields = async (graphId: string, assistantConfig: JsonObject, fields: CronRunFields) => {
    if (fields.webhook !== undefined) await runs.checkWebhook(fields.webhook);
    await checkNodes(graphs, graphId, mergeConfig(assistantConfig, fields.config), { assistant_id: graphId, ...fields });
  };

  return {
    async create(threadId, request, access) {
      const body = { ...request, metadata: { ...(request.metadata ?? {}) } };
      const assistant = await assistants.getForRun(body.assistant_id, access);
      const cronId = newId();
      if (access) {
        // Its runs act for its creator: the user rides in the run config every occurrence starts from.
        const config = body.config ?? {};
        body.config = { ...config, configurable: { ...(config.configurable ?? {}), ...authConfigurable(access.user) } };
        const value: Record<string, unknown> = {
          payload: { assistant_id: assistant.assistant_id, ...pickRunFields(body) },
          schedule: body.schedule,
          cron_id: cronId,
          thread_id: threadId,
          user_id: access.user.identity,
          end_time: body.end_time?.toISOString() ?? null,
          metadata: body.metadata,
        };
        await access.authorize("crons", "create", value);
        body.metadata = (value.metadata ?? {}) as Record<string, unknown>;
      }
      if (threadId !== null) {
        const threadAuth = await authorize(access, "threads", "read", { thread_id: threadId });
        const thread = await threads.get(threadId, authField(threadAuth));
        if (!thread) throw notFound(`Thread ${threadId} not found`);
        checkThreadGraph(thread, assistant);
        if (body.on_run_completed !== undefined)
          throw invalid("Field 'on_run_completed' applies to stateless crons only; a thread cron's runs stay on its thread");
      }
      await checkRunFields(assistant.graph_id, assistant.config, body);
      const now = clock();
      const timezone = body.timezone ?? null;
      const schedule = parseLiveSchedule(body.schedule, timezone, now);
      const endTime = body.end_time ?? null;
      return crons.create({
        cron_id: cronId,
        assistant_id: assistant.assistant_id,
        thread_id: threadId,
        on_run_completed: threadId === null ? (body.on_run_completed ?? "delete") : null,
        end_time: endTime,
        schedule: body.schedule,
        timezone,
        payload: { assistant_id: assistant.assistant_id, ...pickRunFields(body) },
        user_id: access?.user.identity ?? null,
        next_run_date: nextRunDate(schedule, now, endTime),
        metadata: (body.metadata ?? {}) as JsonObject,
        enabled: body.enabled ?? true,
      });
    },
    get: async (cronId, access) => withoutRevision(await mustGet(cronId, await authorize(access, "crons", "read", { cron_id: cronId }))),
    async update(cronId, request, access) {
      const patch = { ...request, ...(request.metadata ? { metadata: { ...request.metadata } } : {}) };
      const value: Record<string, unknown> = {
        cron_id: cronId,
        payload: pickRunFields(patch),
        ...(patch.schedule ? { schedule: patch.schedule } : {}),
        ...(patch.metadata ? { metadata: patch.metadata } : {}),
      };
      const auth = await authorize(access, "crons", "update", value);
      if (access && value.metadata) patch.metadata = value.metadata as Record<string, unknown>;
      if (access && patch.config) {
        // A new run config must not drop (or forge) the creator the cron's runs act for.
        patch.config = { ...patch.config, configurable: { ...(patch.config.configurable ?? {}), ...authConfigurable(access.user) } };
      }
      for (let attempt = 1; ; attempt++) {
        // The revision check in replace() makes this read and the write one step: a cron changed
        // (say, its metadata) in between is read again and judged again.
        const current = await mustGet(cronId, auth);
        if (patch.on_run_completed !== undefined && current.thread_id !== null) {
          throw invalid("Field 'on_run_completed' applies to stateless crons only; this cron runs on a thread");
        }
        const runFields = pickRunFields(patch);
        if (Object.keys(runFields).length > 0) {
          const assistant = await assistants.get(current.assistant_id);
          await checkRunFields(assistant.graph_id, assistant.config, { ...(current.payload as CronRunFields), ...runFields });
        }
        const fields = nextFields(current, patch, runFields, clock());
        const replaced = await crons.replace(cronId, current.revision, fields);
        if (replaced === null) throw notFound(`Cron ${cronId} not found`);
        if (replaced !== "changed") return replaced;
        if (attempt >= UPDATE_ATTEMPTS) throw conflict(`Cron ${cronId} kept changing while it was being updated; try the update again`);
      }
    },
    async delete(cronId, access) {
      const auth = await authorize(access, "crons", "delete", { cron_id: cronId });
      if (!(await crons.delete(cronId, auth))) throw notFound(`Cron ${cronId} not found`);
    },
    async search(filter, sort, page, access) {
      const auth = await searchAuth(filter, page, access);
      const result = await crons.search({ ...resolveFilter(filter), ...authField(auth) }, sort, page);
      return { ...result, now: clock().toISOString() };
    },
    count: async (filter, access) => crons.count({ ...resolveFilter(filter), ...authField(await searchAuth(filter, undefined, access)) }),
    async fire(due) {
      const requests = due.map(cronRunRequest);
      const answers = new Array<Run | Error>(due.length);
      const stateless = requests.flatMap((request, i) => (request.threadId === null ? [i] : []));
      const created = await runs.createStateless(stateless.map((i) => requests[i]!.body));
      stateless.forEach((i, n) => (answers[i] = created[n]!));
      // A thread cron's run meets its thread's multitask rule, one locking write at a time.
      for (const [i, { threadId, body }] of requests.entries()) {
        if (threadId === null) continue;
        answers[i] = await runs.create(threadId, body, { headers: {} }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      }
      return answers;
    },
  };

  function searchAuth(filter: CronFilter, page: Page | undefined, access: Access | undefined) {
    if (!access) return undefined;
    return authorize(access, "crons", "search", {
      assistant_id: filter.assistant_id ?? null,
      thread_id: filter.thread_id ?? null,
      limit: page?.limit ?? null,
      offset: page?.offset ?? null,
    });
  }

  function resolveFilter(filter: CronFilter): CronFilter {
    return filter.assistant_id === undefined ? filter : { ...filter, assistant_id: assistants.resolveId(filter.assistant_id) };
  }
}

/** The run one occurrence of a cron creates: its payload, its metadata plus cron_id, on its thread or a new one. */
export function cronRunRequest(cron: Cron): { threadId: string | null; body: RunCreate } {
  const body: RunCreate = {
    ...(cron.payload as CronRunFields),
    assistant_id: cron.assistant_id,
    metadata: { ...cron.metadata, cron_id: cron.cron_id },
  };
  if (cron.thread_id === null) {
    body.on_completion = cron.on_run_completed ?? "delete";
    // A stateless run always gets a thread of its own; these only mean something on a thread.
    delete body.multitask_strategy;
    delete body.if_not_exists;
  }
  return { threadId: cron.thread_id, body };
}

function pickRunFields(body: CronRunFields): JsonObject {
  const out: JsonObject = {};
  for (const key of CRON_RUN_FIELDS) {
    if (body[key] !== undefined) out[key] = body[key] as Json;
  }
  return out;
}

/** The cron after a patch. The next run date is recomputed from `now` when the schedule, its end or `enabled` change. */
function nextFields(current: StoredCron, patch: CronPatch, runFields: JsonObject, now: Date): Omit<CronFields, "assistant_id" | "thread_id"> {
  const timezone = patch.timezone ?? current.timezone;
  const scheduleText = patch.schedule ?? current.schedule;
  const endTime = patch.end_time === undefined ? (current.end_time === null ? null : new Date(current.end_time)) : patch.end_time;
  const enabled = patch.enabled ?? current.enabled;
  const rescheduled =
    patch.schedule !== undefined || patch.timezone !== undefined || patch.end_time !== undefined || (patch.enabled === true && !current.enabled);
  let nextRun = current.next_run_date === null ? null : new Date(current.next_run_date);
  if (rescheduled) {
    const schedule = patch.schedule !== undefined ? parseLiveSchedule(scheduleText, timezone, now) : parseSchedule(scheduleText, timezone);
    nextRun = nextRunDate(schedule, now, endTime);
  }
  return {
    on_run_completed: patch.on_run_completed ?? current.on_run_completed,
    end_time: endTime,
    schedule: scheduleText,
    timezone,
    payload: { ...current.payload, ...runFields },
    user_id: current.user_id,
    next_run_date: nextRun,
    metadata: { ...current.metadata, ...((patch.metadata ?? {}) as JsonObject) },
    enabled,
  };
}

function withoutRevision(cron: StoredCron): Cron {
  const { revision: _revision, ...rest } = cron;
  return rest;
}
