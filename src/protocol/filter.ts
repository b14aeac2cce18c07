// Which protocol events a reader wants: the filter of POST /threads/{id}/stream/events and of a
// WebSocket subscription (channels, namespace prefixes with a depth below them, and a `since`
// cursor). Matching is core LangGraph's own predicate, the one the SDK narrows subscriptions with,
// so server and client agree on every edge (named custom channels, dynamic namespace suffixes).
import type { Event, EventStreamRequest } from "@langchain/protocol";
import { isSupportedChannel, type MatchableEvent, matchesSubscription } from "@langchain/langgraph/stream";
import { z } from "zod";
import { invalid } from "../errors.js";
import { parseIgnoringUnknownKeys, formatPath } from "../unknown-keys.js";

const NOT_A_CHANNEL = "not a protocol channel (values, updates, messages, tools, lifecycle, input, checkpoints, tasks, custom, custom:<name>)";

const FilterSchema = z.object({
  channels: z.array(z.string().refine(isSupportedChannel, { message: NOT_A_CHANNEL })).min(1, { message: "name at least one channel" }),
  namespaces: z.array(z.array(z.string())).optional(),
  depth: z.number().int().nonnegative().optional(),
  since: z.number().int().nonnegative().optional(),
});

/** The filter as a client sent it; throws an `invalid` GantryError naming the field that is wrong. Unknown keys are ignored. */
export function parseEventFilter(value: unknown): EventStreamRequest {
  const parsed = parseIgnoringUnknownKeys(FilterSchema, value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(`Field '${issue.path.length ? formatPath(issue.path) : "filter"}' is invalid: ${issue.message}`);
  }
  return parsed.data as EventStreamRequest;
}

export function matchesFilter(event: Event, filter: EventStreamRequest): boolean {
  return matchesSubscription(event as unknown as MatchableEvent, filter);
}
