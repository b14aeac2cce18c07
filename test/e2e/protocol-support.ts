// What the protocol (v2) e2e tests share: reading a thread's events through the SDK's
// `client.threads.stream()` until its run ends, and checks on what came.
import type { Client } from "@langchain/langgraph-sdk";
import type { Event } from "@langchain/protocol";
import { expect } from "vitest";

export const ALL_CHANNELS = ["values", "updates", "messages", "tools", "custom", "checkpoints", "tasks", "lifecycle", "input"] as const;

type ThreadStream = ReturnType<Client["threads"]["stream"]>;

export const isRootTerminal = (event: Event): boolean =>
  event.method === "lifecycle" &&
  event.params.namespace.length === 0 &&
  ["completed", "failed", "interrupted"].includes((event.params.data as { event: string }).event);

/**
 * Subscribes (the SDK's raw subscription: one SSE stream with the union filter) and collects events
 * until `terminals` root terminal lifecycle events have arrived, or the deadline.
 */
export async function collectRun(
  thread: ThreadStream,
  start: () => Promise<unknown>,
  options: { channels?: readonly string[]; namespaces?: string[][]; depth?: number; terminals?: number; deadlineMs?: number; afterSeq?: number } = {},
): Promise<Event[]> {
  const channels = [...new Set([...(options.channels ?? ALL_CHANNELS), "lifecycle"])];
  const handle = await thread.subscribe({
    channels,
    ...(options.namespaces ? { namespaces: options.namespaces } : {}),
    ...(options.depth !== undefined ? { depth: options.depth } : {}),
  } as never);
  // A new stream replays the thread's earlier runs; this run's events come after what was seen.
  const seen = options.afterSeq ?? thread.ordering.lastSeenSeq ?? -1;
  await start();
  const events: Event[] = [];
  let terminals = 0;
  let closed = false;
  const deadline = setTimeout(() => {
    closed = true;
    handle.close();
  }, options.deadlineMs ?? 30_000);
  try {
    // The SDK pauses a subscription after a root terminal event until the next run's events come.
    while (!closed) {
      for await (const event of handle as AsyncIterable<Event>) {
        if ((event.seq ?? 0) <= seen) continue;
        events.push(event);
        if (isRootTerminal(event) && ++terminals >= (options.terminals ?? 1)) return events;
      }
      await handle.waitForResume();
    }
  } finally {
    clearTimeout(deadline);
    handle.close();
  }
  return events;
}

/** seq strictly increasing and event_id unique: nothing repeated, nothing out of order. */
export function expectOrdered(events: readonly Event[]): void {
  const seqs = events.map((e) => e.seq!);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
}

export const lifecycleOf = (events: readonly Event[], namespace: string[] = []) =>
  events
    .filter((e) => e.method === "lifecycle" && JSON.stringify(e.params.namespace) === JSON.stringify(namespace))
    .map((e) => (e.params.data as { event: string }).event);

/** A raw SSE stream of POST /threads/{id}/stream/events, read until `done` says so (or the deadline), then closed. */
export async function readEvents(
  url: string,
  threadId: string,
  filter: Record<string, unknown>,
  done: (events: Event[]) => boolean,
  deadlineMs = 20_000,
): Promise<{ status: number; events: Event[] }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), deadlineMs);
  const events: Event[] = [];
  try {
    const response = await fetch(`${url}/threads/${threadId}/stream/events`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(filter),
      signal: abort.signal,
    });
    if (!response.ok || !response.body) return { status: response.status, events };
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const data = buffer
          .slice(0, end)
          .split("\n")
          .find((line) => line.startsWith("data: "));
        if (data) events.push(JSON.parse(data.slice(6)) as Event);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
      }
      if (done(events)) break;
    }
    return { status: response.status, events };
  } catch (err) {
    if (abort.signal.aborted) return { status: 200, events };
    throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/**
 * A fetch for the SDK whose event streams break after `events` SSE frames, as a network drop would:
 * the first stream to get that far breaks (the SDK replaces streams as its subscriptions change, so
 * the first one may be closed before), and everything after that goes through untouched.
 */
export function dropAfter(events: number): { fetch: typeof fetch; dropped(): boolean } {
  let dropped = false;
  const dropping: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (dropped || !url.endsWith("/stream/events") || !response.body) return response;
    let frames = 0;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        frames += new TextDecoder().decode(value).split("\n\n").length - 1;
        if (frames >= events && !dropped) {
          dropped = true;
          await reader.cancel();
          controller.error(new TypeError("network connection lost"));
        }
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: dropping, dropped: () => dropped };
}
