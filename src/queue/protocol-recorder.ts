// The worker's half of the protocol (v2): a protocol run's events (or a classic run's, while the
// thread has protocol readers), normalized, each given its
// place in the thread (`seq`, and `event_id` = the seq as text), appended to the thread's protocol
// log, where every replica's readers find them. The run's root lifecycle is written here: `running`
// when it starts, and how it ended before its outcome is recorded, so the next run of the thread
// (claimed only once this one is finished) continues the seq after it.
import type { AgentStatus, Event } from "@langchain/protocol";
import { protocolLogEntry, protocolLogKey, type RunEvent, type RunEventLog } from "../events/run-event-log.js";
import { writeWindow } from "../events/write-window.js";
import { type DraftEvent, protocolNormalizer } from "../protocol/normalize.js";
import type { CompiledGraphLike } from "../runtime/graph-like.js";
import { streamProtocolRun } from "../runtime/protocol-stream.js";
import type { GraphRunOptions } from "../runtime/run-stream.js";
import type { ClaimedRun, RunOutcome } from "../storage/run-ports.js";

export interface ProtocolRecorder {
  /** Runs the graph: its protocol events go to the thread's log; the classic ones are yielded for the run's own log. */
  stream(graph: CompiledGraphLike, options: Omit<GraphRunOptions, "streamMode" | "subgraphs">): AsyncGenerator<RunEvent>;
  /**
   * A classic run's event, shown to the thread's protocol readers: root lifecycle, values,
   * updates and custom events (the modes the run asked for); the rest is not for this log.
   */
  mirror(event: RunEvent): Promise<void>;
  /** The run's terminal root lifecycle, from the outcome about to be recorded. */
  end(outcome: RunOutcome): Promise<void>;
}

/** Protocol events the recorder may have appended and not yet seen written (see writeWindow). */
const WRITE_WINDOW = 1024;

export async function protocolRecorder(events: RunEventLog, run: ClaimedRun): Promise<ProtocolRecorder> {
  const key = protocolLogKey(run.thread_id);
  await events.open(key, { resumable: true, expiresWhenIdle: true });
  const last = (await events.last(key))?.data as Event | undefined;
  // A thread whose log has expired starts again from the clock, so a client that kept its
  // event ids from before never mistakes a new event for one it has seen.
  let seq = typeof last?.seq === "number" ? last.seq : Date.now();
  const graphName = run.kwargs.config.configurable.graph_id;
  const normalizer = protocolNormalizer();

  // Appends are not awaited one by one (the log keeps their order and batches them); end() waits
  // for all of them, so they are written before the run's outcome is recorded.
  const written = writeWindow(WRITE_WINDOW);
  const write = (draft: DraftEvent) => {
    seq += 1;
    const event = { type: "event", event_id: String(seq), seq, method: draft.method, params: draft.params } as Event;
    return written.add(events.append(key, protocolLogEntry(event)));
  };
  const root = (data: Record<string, unknown>): DraftEvent => ({ method: "lifecycle", params: { namespace: [], timestamp: Date.now(), data } });

  await write(root({ event: "running", graph_name: graphName }));

  return {
    async *stream(graph, options) {
      for await (const event of streamProtocolRun(graph, options)) {
        const { protocol, classic } = normalizer.see(event);
        for (const draft of protocol) await write(draft);
        yield* classic;
      }
    },

    async mirror({ event, data }) {
      const [mode, ...namespace] = event.split("|");
      const at = { namespace, timestamp: Date.now() };
      const core =
        mode === "values"
          ? [{ method: "values", params: { ...at, data } }]
          : mode === "custom"
            ? [{ method: "custom", params: { ...at, data: { payload: data } } }]
            : mode === "updates" && data !== null && typeof data === "object"
              ? Object.entries(data).map(([node, values]) => ({ method: "updates", params: { ...at, node, data: { node, values } } }))
              : [];
      for (const one of core) for (const draft of normalizer.see(one).protocol) await write(draft);
    },

    async end(outcome) {
      const status: AgentStatus =
        outcome.status === "success"
          ? normalizer.interrupted || outcome.thread_status === "interrupted"
            ? "interrupted"
            : "completed"
          : outcome.status === "interrupted"
            ? "interrupted"
            : "failed";
      const error = status === "failed" ? errorMessage(outcome.error) : undefined;
      await write(root({ event: status, graph_name: graphName, ...(error !== undefined ? { error } : {}) }));
      await written.settled();
    },
  };
}

function errorMessage(error: unknown): string {
  if (error !== null && typeof error === "object" && typeof (error as { message?: unknown }).message === "string")
    return (error as { message: string }).message;
  return "Run failed";
}
