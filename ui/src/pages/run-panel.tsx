// Starts a run on a thread with JSON input, or resumes an interrupted thread with a JSON value
// (`command: {resume}`), and shows the run's stream as it arrives.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Client, Interrupt, StreamMode } from "@langchain/langgraph-sdk";
import { errorText, parseJsonField } from "../api.js";
import { ErrorBox, Json, Progress } from "../components/common.js";
import { useLoad } from "../use-load.js";

const STREAM_MODES: StreamMode[] = ["updates", "values", "messages-tuple", "custom", "debug"];
// A long run can send thousands of events; the page keeps the latest ones.
const KEEP_EVENTS = 500;

interface StreamedEvent {
  n: number;
  event: string;
  data: unknown;
}

export function RunPanel(props: { client: Client; threadId: string; assistantId: string | undefined; interrupts: Interrupt[]; onFinished: () => void }) {
  const { client, threadId, interrupts } = props;
  const assistants = useLoad(() => client.assistants.search({ limit: 100, sortBy: "created_at", sortOrder: "asc" }), [client]);
  const [chosen, setChosen] = useState<string>();
  // Until the user picks one: the assistant asked for (by id, or by graph id as the API allows),
  // else the first.
  const list = assistants.data ?? [];
  const wanted = list.find((a) => a.assistant_id === props.assistantId) ?? list.find((a) => a.graph_id === props.assistantId) ?? list[0];
  const assistantId = chosen ?? wanted?.assistant_id ?? "";
  const [inputText, setInputText] = useState("{}");
  const [resumeText, setResumeText] = useState("");
  const [streamMode, setStreamMode] = useState<StreamMode>("updates");
  const [events, setEvents] = useState<StreamedEvent[]>([]);
  const [running, setRunning] = useState<string>();
  const [error, setError] = useState<string>();
  const abort = useRef<AbortController>();

  useEffect(() => () => abort.current?.abort(), []);

  const stream = async (label: string, payload: { input?: Record<string, unknown> | null; command?: { resume: unknown } }) => {
    if (!assistantId) {
      setError("Choose an assistant first");
      return;
    }
    setError(undefined);
    setEvents([]);
    setRunning(label);
    abort.current = new AbortController();
    let n = 0;
    try {
      const chunks = client.runs.stream(threadId, assistantId, { ...payload, streamMode, signal: abort.current.signal });
      for await (const chunk of chunks) {
        const event = { n: n++, event: chunk.event, data: chunk.data };
        setEvents((before) => [...before.slice(-(KEEP_EVENTS - 1)), event]);
        if (chunk.event === "error") setError(streamError(chunk.data));
      }
    } catch (err) {
      if (!abort.current.signal.aborted) setError(errorText(err));
    } finally {
      setRunning(undefined);
      props.onFinished();
    }
  };

  const start = (event: Event) => {
    event.preventDefault();
    try {
      void stream("Running…", { input: (parseJsonField("Input", inputText) ?? null) as Record<string, unknown> | null });
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const resume = (event: Event) => {
    event.preventDefault();
    try {
      void stream("Resuming…", { command: { resume: parseJsonField("Resume value", resumeText) ?? null } });
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <section class="panel run-panel" aria-label="Run panel">
      <h3>Run</h3>
      <div class="row">
        <label>
          Assistant
          <select name="assistant" value={assistantId} onChange={(e) => setChosen(e.currentTarget.value)}>
            {assistants.data?.map((a) => (
              <option key={a.assistant_id} value={a.assistant_id}>
                {a.name} ({a.graph_id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Stream mode
          <select name="stream-mode" value={streamMode} onChange={(e) => setStreamMode(e.currentTarget.value as StreamMode)}>
            {STREAM_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBox error={assistants.error} />
      {interrupts.length > 0 && (
        <form class="resume" onSubmit={resume}>
          <h4>Interrupted: waiting for a value</h4>
          {interrupts.map((i, index) => (
            <Json key={i.id ?? index} value={i.value} label="Interrupt value" />
          ))}
          <label>
            Resume value (JSON)
            <textarea
              name="resume"
              class="mono"
              rows={2}
              placeholder='"yes" or {"approved": true}; empty resumes with null'
              value={resumeText}
              onInput={(e) => setResumeText(e.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={running !== undefined}>
            Resume
          </button>
        </form>
      )}
      <form onSubmit={start}>
        <label>
          Input (JSON)
          <textarea name="input" class="mono" rows={4} value={inputText} onInput={(e) => setInputText(e.currentTarget.value)} />
        </label>
        <div class="row">
          <button type="submit" disabled={running !== undefined}>
            Start run
          </button>
          {running && (
            <button type="button" class="secondary" onClick={() => abort.current?.abort()}>
              Stop watching
            </button>
          )}
        </div>
      </form>
      {running && <Progress label={running} />}
      <ErrorBox error={error} />
      {events.length > 0 && (
        <ol class="events" aria-label="Stream">
          {events.map((e) => (
            <li key={e.n} class={`event event-${e.event.split("|")[0]}`}>
              <span class="event-name">{e.event}</span>
              <Json value={e.data} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function streamError(data: unknown): string {
  if (data && typeof data === "object" && "message" in data) return `Run failed: ${String((data as { message: unknown }).message)}`;
  return `Run failed: ${JSON.stringify(data)}`;
}
