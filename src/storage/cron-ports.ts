// The crons' storage port (spec §1.5, §2.5). A cron is a row holding its schedule, the run payload it
// creates runs from, and its next fire time. Schedulers in several processes share the rows: an
// occurrence belongs to the one whose conditional update of the row (by `revision`) succeeds.
import type { AuthFilter } from "./auth-filter.js";
import type { JsonObject } from "./records.js";
import type { Page, Paged, SortOrder } from "./ports.js";

/** A cron as it travels on the wire (spec §2.5). */
export interface Cron {
  cron_id: string;
  assistant_id: string;
  /** Null for a stateless cron, whose every run gets a new thread. */
  thread_id: string | null;
  /** Stateless crons only: keep or delete each run's thread when the run ends. */
  on_run_completed: "delete" | "keep" | null;
  end_time: string | null;
  schedule: string;
  /** IANA name; null means UTC. */
  timezone: string | null;
  created_at: string;
  updated_at: string;
  /** The run-create fields every run starts from (input, config, context, webhook, ...). */
  payload: JsonObject;
  user_id: string | null;
  /** Null once the schedule has no occurrence left before end_time. */
  next_run_date: string | null;
  metadata: JsonObject;
  enabled: boolean;
}

/** A cron with the counter that every write to its row increments. */
export interface StoredCron extends Cron {
  revision: number;
}

/** Everything about a cron that its owner sets; ids and timestamps are the repo's. */
export interface CronFields {
  assistant_id: string;
  thread_id: string | null;
  on_run_completed: "delete" | "keep" | null;
  end_time: Date | null;
  schedule: string;
  timezone: string | null;
  payload: JsonObject;
  user_id: string | null;
  next_run_date: Date | null;
  metadata: JsonObject;
  enabled: boolean;
}

export interface NewCron extends CronFields {
  cron_id: string;
}

export interface CronFilter {
  assistant_id?: string;
  thread_id?: string;
  enabled?: boolean;
  /** JSON containment on metadata. */
  metadata?: JsonObject;
  /** The caller's auth filter on metadata, ANDed with the rest. */
  auth?: AuthFilter;
}

export type CronSortField = "cron_id" | "assistant_id" | "thread_id" | "next_run_date" | "end_time" | "created_at" | "updated_at";

/** Methods taking `auth` treat a cron whose metadata does not match it as missing (spec §6.5). */
export interface CronRepo {
  create(input: NewCron): Promise<Cron>;
  get(cronId: string, auth?: AuthFilter): Promise<StoredCron | null>;
  /**
   * Replaces the cron's fields (thread_id and assistant_id excepted) if its revision is still
   * `revision`; "changed" when another write came first, null when the cron is gone.
   */
  replace(cronId: string, revision: number, fields: Omit<CronFields, "assistant_id" | "thread_id">): Promise<Cron | "changed" | null>;
  delete(cronId: string, auth?: AuthFilter): Promise<boolean>;
  search(filter: CronFilter, sort: { by: CronSortField; order: SortOrder }, page: Page): Promise<Paged<Cron>>;
  count(filter: CronFilter): Promise<number>;
  /** Enabled crons whose next_run_date is at or before `now`, earliest first. */
  due(now: Date, limit: number): Promise<StoredCron[]>;
  /**
   * Moves each due cron on to its `next` (null: no occurrence left) if its revision is still
   * `revision`, and returns the ids of those moved: this caller now owns the occurrences it read.
   * A cron left out lost to another process (or an update, delete or disable). Each claim stands
   * on its own, as if made alone; several in one call save round trips.
   */
  advance(claims: CronClaim[]): Promise<Set<string>>;
}

/** A due cron as `due` read it, and the occurrence after the one being claimed. */
export interface CronClaim {
  cron_id: string;
  revision: number;
  next: Date | null;
}
