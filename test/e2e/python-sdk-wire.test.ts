// Requests shaped exactly as the Python SDK (`langgraph-sdk` 0.4.3 on PyPI, langchain-ai/langgraph
// libs/sdk-py/langgraph_sdk/) sends them, over raw HTTP against a real `gantry dev`: its httpx
// client encodes query values as `true`/`false` for booleans, repeats the key for lists and sends a
// value it lacks as `key=`; bodies are compact JSON with None-valued keys left out, and every
// request carries `User-Agent: langgraph-sdk-py/<version>`. Each case names the SDK method it
// mirrors (sync client, `langgraph_sdk/_sync/`; the async one builds the same requests).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { RUNS_CONFIG, RUNS_ENV } from "./runs-support.js";

type QueryValue = string | number | boolean | null | Array<string | number | boolean>;

interface PyRequest {
  params?: Record<string, QueryValue>;
  json?: unknown;
  headers?: Record<string, string>;
  /** SyncHttpClient.stream: the SSE headers it adds. */
  stream?: boolean;
}

interface PyResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** httpx's primitive_value_to_str: True/False as true/false, None as the empty string. */
function queryValue(value: string | number | boolean | null): string {
  if (value === true) return "true";
  if (value === false) return "false";
  if (value === null) return "";
  return String(value);
}

/** httpx's query encoding: a list repeats its key. */
function queryString(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, queryValue(item));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

let server: RunningGantry;

async function py(method: string, path: string, init: PyRequest = {}): Promise<PyResponse> {
  const headers: Record<string, string> = { accept: "*/*", "user-agent": "langgraph-sdk-py/0.4.3" };
  let body: string | undefined;
  // _encode_json: orjson, compact, with the JSON content type (and, for DELETE, httpx's json=).
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] = "application/json";
  }
  if (init.stream) Object.assign(headers, { accept: "text/event-stream", "cache-control": "no-store" });
  Object.assign(headers, init.headers);
  const response = await fetch(`${server.url}${path}${queryString(init.params ?? {})}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The events of an SSE body, as langgraph_sdk/sse.py decodes them. */
function sseEvents(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines
        .find((l) => l.startsWith("event:"))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      return event ? { event, data: data ? (JSON.parse(data) as unknown) : null } : undefined;
    })
    .filter((e): e is { event: string; data: unknown } => e !== undefined);
}

const jsonOf = <T>(response: PyResponse): T => {
  expect(response.status, response.text).toBeLessThan(300);
  return response.json as T;
};

beforeAll(async () => {
  server = await startGantry({ config: RUNS_CONFIG, env: { ...RUNS_ENV, LOG_LEVEL: "debug" } });
});

afterAll(async () => {
  await server?.stop();
});

/** SyncThreadsClient.create: `{}` for a thread with no options. */
const newThread = async () => jsonOf<{ thread_id: string }>(await py("POST", "/threads", { json: {} })).thread_id;

describe("runs", () => {
  // SyncRunsClient.wait: the sync client puts its client-side `raise_error` (default True) in the
  // body; the official server's schema does not know it and drops it.
  it("runs.wait: answers the final values to a body holding raise_error", async () => {
    const threadId = await newThread();
    const stateful = await py("POST", `/threads/${threadId}/runs/wait`, { json: { input: { text: "py" }, assistant_id: "echo", raise_error: true } });
    expect(stateful.status, stateful.text).toBe(200);
    expect(stateful.json).toEqual({ text: "py", reply: "echo: py" });
    expect(stateful.headers.get("location")).toBe(`/threads/${threadId}/runs/${stateful.headers.get("content-location")!.split("/").pop()}/join`);

    const stateless = await py("POST", "/runs/wait", { json: { input: { text: "once" }, assistant_id: "echo", raise_error: false } });
    expect(stateless.status, stateless.text).toBe(200);
    expect(stateless.json).toEqual({ text: "once", reply: "echo: once" });

    const ignored = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"ignored unknown fields"'))
      .map((line) => JSON.parse(line) as { route: string; where: string; fields: string[] });
    expect(ignored).toContainEqual(expect.objectContaining({ route: "/runs/wait", where: "body", fields: ["raise_error"] }));
  });

  // SyncRunsClient.wait on a failing graph: the error comes back in the body (the sync client
  // does not raise on it; see langgraph issue #8383).
  it("runs.wait: reports a failed run as __error__ in a 200 body", async () => {
    const response = await py("POST", `/threads/${await newThread()}/runs/wait`, { json: { input: {}, assistant_id: "fails", raise_error: true } });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ __error__: { error: expect.any(String), message: expect.any(String) } });
  });

  // SyncRunsClient.join_stream with no stream_mode: `?stream_mode=&cancel_on_disconnect=false`.
  // The official server sends every event of the run; an empty stream_mode is no filter.
  // SyncRunsClient.cancel: `?wait=0&action=interrupt`, no body.
  it("runs.join_stream: sends the run's events to `stream_mode=` and ends with the run", async () => {
    const threadId = await newThread();
    const blocker = jsonOf<{ run_id: string }>(
      await py("POST", `/threads/${threadId}/runs`, { json: { input: { ms: 60_000, label: "first" }, assistant_id: "slow" } }),
    );
    // SyncRunsClient.create: queued behind the first run, so the join below is attached before it
    // starts; its second of work leaves room for a join slow to arrive on a busy machine.
    const queued = jsonOf<{ run_id: string }>(
      await py("POST", `/threads/${threadId}/runs`, {
        json: { input: { ms: 1000, label: "second" }, stream_mode: ["values", "updates"], assistant_id: "slow", multitask_strategy: "enqueue" },
      }),
    );
    const joined = py("GET", `/threads/${threadId}/runs/${queued.run_id}/stream`, { params: { stream_mode: null, cancel_on_disconnect: false }, stream: true });
    await new Promise((settle) => setTimeout(settle, 300));
    const cancelled = await py("POST", `/threads/${threadId}/runs/${blocker.run_id}/cancel`, { params: { wait: 0, action: "interrupt" } });
    expect(cancelled.status, cancelled.text).toBeLessThan(300);

    const response = await joined;
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = sseEvents(response.text);
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["values", "updates"]));
    expect(events.filter((e) => e.event === "values").at(-1)?.data).toEqual({ ms: 1000, label: "second", log: ["second"] });
  });

  // SyncRunsClient.join_stream of a run that is not there: the SDK checks the status and the
  // event-stream content type, then yields the `error` event as a StreamPart, as it does with the
  // official servers' answer (the reference's "stream run other user thread").
  it("runs.join_stream: a run not found is a 200 event stream of one error event saying 404", async () => {
    const threadId = await newThread();
    const runId = randomUUID();
    const response = await py("GET", `/threads/${threadId}/runs/${runId}/stream`, { params: { stream_mode: null, cancel_on_disconnect: false }, stream: true });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(sseEvents(response.text)).toEqual([{ event: "error", data: { error: "NotFound", message: `404: Run ${runId} not found on thread ${threadId}` } }]);
  });

  // SyncRunsClient.join_stream naming modes: the key repeated, `?stream_mode=values&stream_mode=updates`.
  it("runs.join_stream: filters to the modes named by a repeated stream_mode key", async () => {
    const threadId = await newThread();
    const run = jsonOf<{ run_id: string }>(
      await py("POST", `/threads/${threadId}/runs`, {
        json: { input: { text: "modes" }, stream_mode: ["values", "updates", "debug"], stream_resumable: true, assistant_id: "echo" },
      }),
    );
    // SyncRunsClient.join: GET …/join, no query.
    jsonOf(await py("GET", `/threads/${threadId}/runs/${run.run_id}/join`));
    const response = await py("GET", `/threads/${threadId}/runs/${run.run_id}/stream`, {
      params: { stream_mode: ["values", "updates"], cancel_on_disconnect: false },
      headers: { "Last-Event-ID": "-1" },
      stream: true,
    });
    expect(response.status, response.text).toBe(200);
    expect(new Set(sseEvents(response.text).map((e) => e.event))).toEqual(new Set(["metadata", "values", "updates"]));
  });

  // SyncRunsClient.stream: POST …/runs/stream with the SSE headers and `stream_mode` as a string.
  it("runs.stream: streams metadata then values", async () => {
    const response = await py("POST", `/threads/${await newThread()}/runs/stream`, {
      json: { input: { text: "s" }, stream_mode: "values", assistant_id: "echo", on_disconnect: "cancel" },
      stream: true,
    });
    expect(response.status, response.text).toBe(200);
    expect(sseEvents(response.text).map((e) => e.event)).toEqual(["metadata", "values", "values"]);
  });

  // SyncRunsClient.create_batch: a list of snake_case payloads, None values left out.
  it("runs.create_batch", async () => {
    const runs = jsonOf<Array<{ run_id: string; status: string }>>(
      await py("POST", "/runs/batch", {
        json: [
          { assistant_id: "echo", input: { text: "b1" } },
          { assistant_id: "echo", input: { text: "b2" }, on_completion: "keep" },
        ],
      }),
    );
    expect(runs).toHaveLength(2);
  });

  // SyncRunsClient.list: `?limit=10&offset=0&select=run_id&select=status` (select repeated).
  it("runs.list: reads limit, offset and a repeated select", async () => {
    const threadId = await newThread();
    jsonOf(await py("POST", `/threads/${threadId}/runs/wait`, { json: { input: { text: "l" }, assistant_id: "echo", raise_error: true } }));
    const runs = jsonOf<Array<Record<string, unknown>>>(
      await py("GET", `/threads/${threadId}/runs`, { params: { limit: 10, offset: 0, select: ["run_id", "status"] } }),
    );
    expect(runs).toEqual([{ run_id: expect.any(String), status: "success" }]);
  });

  // SyncRunsClient.cancel(wait=True): `?wait=1&action=interrupt`, answered when the run has stopped.
  // SyncRunsClient.cancel_many: POST /runs/cancel?action=interrupt with {thread_id, run_ids}.
  it("runs.cancel with wait=1 and runs.cancel_many", async () => {
    const threadId = await newThread();
    const first = jsonOf<{ run_id: string }>(
      await py("POST", `/threads/${threadId}/runs`, { json: { input: { ms: 60_000, label: "a" }, assistant_id: "slow" } }),
    );
    const stopped = await py("POST", `/threads/${threadId}/runs/${first.run_id}/cancel`, { params: { wait: 1, action: "interrupt" } });
    expect(stopped.status, stopped.text).toBeLessThan(300);
    expect(jsonOf<{ status: string }>(await py("GET", `/threads/${threadId}/runs/${first.run_id}`)).status).toBe("interrupted");

    const second = jsonOf<{ run_id: string }>(
      await py("POST", `/threads/${threadId}/runs`, { json: { input: { ms: 60_000, label: "b" }, assistant_id: "slow" } }),
    );
    const many = await py("POST", "/runs/cancel", { params: { action: "interrupt" }, json: { thread_id: threadId, run_ids: [second.run_id] } });
    expect(many.status, many.text).toBeLessThan(300);
    await py("POST", `/threads/${threadId}/runs/${second.run_id}/cancel`, { params: { wait: 1, action: "interrupt" } });
    expect(jsonOf<{ status: string }>(await py("GET", `/threads/${threadId}/runs/${second.run_id}`)).status).toBe("interrupted");
  });
});

describe("threads", () => {
  // SyncThreadsClient.create: ttl as a number becomes {ttl, strategy: "delete"}; supersteps carry
  // `"command": None` when the update has none. SyncThreadsClient.get: include comma-joined.
  it("threads.create with ttl and supersteps, threads.get with include", async () => {
    const threadId = randomUUID();
    const created = await py("POST", "/threads", {
      json: {
        thread_id: threadId,
        metadata: { owner: "py", graph_id: "echo" },
        if_exists: "raise",
        supersteps: [{ updates: [{ values: { text: "seeded" }, command: null, as_node: "echo" }] }],
        ttl: { ttl: 30, strategy: "delete" },
      },
    });
    expect(created.status, created.text).toBe(200);
    const thread = jsonOf<{ values: unknown; ttl?: unknown }>(await py("GET", `/threads/${threadId}`, { params: { include: "ttl" } }));
    expect(thread.values).toEqual({ text: "seeded" });
    expect(thread.ttl).toMatchObject({ strategy: "delete", ttl_minutes: 30 });
  });

  // SyncThreadsClient.update: `{"metadata": …}` always, ttl as an object, `Prefer: return=minimal`.
  it("threads.update with return_minimal", async () => {
    const threadId = await newThread();
    const response = await py("PATCH", `/threads/${threadId}`, {
      json: { metadata: { n: 2 }, ttl: { ttl: 60, strategy: "delete" } },
      headers: { Prefer: "return=minimal" },
    });
    expect(response.status, response.text).toBe(204);
    expect(jsonOf<{ metadata: Record<string, unknown> }>(await py("GET", `/threads/${threadId}`)).metadata).toMatchObject({ n: 2 });
  });

  // SyncThreadsClient.get_state: `?subgraphs=false` (the default is sent), by checkpoint id too,
  // and by checkpoint as POST …/state/checkpoint {checkpoint, subgraphs}.
  // SyncThreadsClient.get_history: {limit} and `before` as a Checkpoint dict.
  it("threads.get_state, get_state at a checkpoint, get_history", async () => {
    const threadId = await newThread();
    jsonOf(await py("POST", `/threads/${threadId}/runs/wait`, { json: { input: { text: "st" }, assistant_id: "echo", raise_error: true } }));
    const state = jsonOf<{ values: unknown; checkpoint: { checkpoint_id: string; checkpoint_ns: string } }>(
      await py("GET", `/threads/${threadId}/state`, { params: { subgraphs: false } }),
    );
    expect(state.values).toEqual({ text: "st", reply: "echo: st" });
    const atId = jsonOf<{ values: unknown }>(await py("GET", `/threads/${threadId}/state/${state.checkpoint.checkpoint_id}`, { params: { subgraphs: false } }));
    expect(atId.values).toEqual(state.values);
    const atCheckpoint = jsonOf<{ values: unknown }>(
      await py("POST", `/threads/${threadId}/state/checkpoint`, { json: { checkpoint: state.checkpoint, subgraphs: false } }),
    );
    expect(atCheckpoint.values).toEqual(state.values);
    const history = jsonOf<unknown[]>(await py("POST", `/threads/${threadId}/history`, { json: { limit: 10, before: state.checkpoint } }));
    expect(history.length).toBeGreaterThan(0);
  });

  // SyncThreadsClient.update_state: {values, as_node}.
  it("threads.update_state", async () => {
    const threadId = await newThread();
    jsonOf(await py("POST", `/threads/${threadId}/runs/wait`, { json: { input: { text: "a" }, assistant_id: "echo", raise_error: true } }));
    const updated = await py("POST", `/threads/${threadId}/state`, { json: { values: { text: "b" }, as_node: "echo" } });
    expect(updated.status, updated.text).toBe(200);
    expect(jsonOf<{ values: unknown }>(await py("GET", `/threads/${threadId}/state`, { params: { subgraphs: false } })).values).toMatchObject({ text: "b" });
  });

  // SyncThreadsClient.join_stream: `?stream_mode=run_modes` (its default, one value) with the SSE
  // headers; the stream follows the thread until the client leaves.
  it("threads.join_stream follows the thread's runs", async () => {
    const threadId = await newThread();
    const leave = new AbortController();
    const response = await fetch(`${server.url}/threads/${threadId}/stream?stream_mode=run_modes`, {
      headers: { accept: "text/event-stream", "cache-control": "no-store", "user-agent": "langgraph-sdk-py/0.4.3" },
      signal: leave.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    jsonOf(await py("POST", `/threads/${threadId}/runs/wait`, { json: { input: { text: "followed" }, assistant_id: "echo", raise_error: true } }));
    const reader = response.body!.getReader();
    let text = "";
    while (!text.includes("echo: followed")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    leave.abort();
    expect(text).toContain("echo: followed");
  });

  // SyncThreadsClient.search ({limit, offset} always, the rest when given), count, prune
  // ({thread_ids}, strategy only when not "delete").
  it("threads.search, count and prune", async () => {
    const tag = randomUUID();
    const ids = [
      jsonOf<{ thread_id: string }>(await py("POST", "/threads", { json: { metadata: { tag } } })).thread_id,
      jsonOf<{ thread_id: string }>(await py("POST", "/threads", { json: { metadata: { tag } } })).thread_id,
    ];
    const found = jsonOf<Array<{ thread_id: string }>>(
      await py("POST", "/threads/search", { json: { limit: 10, offset: 0, metadata: { tag }, status: "idle", select: ["thread_id"] } }),
    );
    expect(found.map((t) => t.thread_id).sort()).toEqual([...ids].sort());
    expect(jsonOf<number>(await py("POST", "/threads/count", { json: { metadata: { tag } } }))).toBe(2);
    expect(jsonOf<{ pruned_count: number }>(await py("POST", "/threads/prune", { json: { thread_ids: ids } })).pruned_count).toBe(2);
  });

  // SyncThreadsClient.copy: POST with no body at all (json=None).
  it("threads.copy with no body", async () => {
    const threadId = await newThread();
    const copy = await py("POST", `/threads/${threadId}/copy`);
    expect(copy.status, copy.text).toBe(200);
    expect((copy.json as { thread_id: string }).thread_id).not.toBe(threadId);
  });
});

describe("assistants", () => {
  // SyncAssistantsClient.get_graph: `?xray=false` by default, `?xray=true`, or a depth `?xray=1`.
  // SyncAssistantsClient.get_subgraphs: `?recurse=false`. get_schemas: no query.
  it("assistants.get_graph, get_subgraphs, get_schemas", async () => {
    for (const xray of [false, true, 1]) {
      const graph = jsonOf<{ nodes: unknown[] }>(await py("GET", "/assistants/parent/graph", { params: { xray } }));
      expect(graph.nodes.length).toBeGreaterThan(0);
    }
    expect(jsonOf<Record<string, unknown>>(await py("GET", "/assistants/parent/subgraphs", { params: { recurse: false } }))).toHaveProperty("child");
    expect(jsonOf<Record<string, unknown>>(await py("GET", "/assistants/echo/schemas"))).toHaveProperty("graph_id", "echo");
    // The first subgraphs answer of an Annotation graph waits for its types to be read, minutes on a loaded machine.
  }, 240_000);

  // SyncAssistantsClient.create / search / count / delete(delete_threads=True): `?delete_threads=true`.
  it("assistants.create, search, count and delete with delete_threads", async () => {
    const tag = randomUUID();
    const assistant = jsonOf<{ assistant_id: string }>(
      await py("POST", "/assistants", { json: { graph_id: "echo", metadata: { tag }, if_exists: "raise", name: "py" } }),
    );
    const found = jsonOf<unknown[]>(await py("POST", "/assistants/search", { json: { limit: 10, offset: 0, metadata: { tag } } }));
    expect(found).toHaveLength(1);
    // SyncAssistantsClient.update, get_versions ({limit, offset}), set_latest ({version}).
    jsonOf(await py("PATCH", `/assistants/${assistant.assistant_id}`, { json: { metadata: { tag, v: 2 } } }));
    expect(jsonOf<unknown[]>(await py("POST", `/assistants/${assistant.assistant_id}/versions`, { json: { limit: 10, offset: 0 } }))).toHaveLength(2);
    expect(jsonOf<{ version: number }>(await py("POST", `/assistants/${assistant.assistant_id}/latest`, { json: { version: 1 } })).version).toBe(1);
    expect(jsonOf<number>(await py("POST", "/assistants/count", { json: { metadata: { tag } } }))).toBe(1);
    const deleted = await py("DELETE", `/assistants/${assistant.assistant_id}`, { params: { delete_threads: true } });
    expect(deleted.status, deleted.text).toBeLessThan(300);
    expect((await py("GET", `/assistants/${assistant.assistant_id}`)).status).toBe(404);
  });
});

describe("store and crons", () => {
  // SyncStoreClient.put_item (None values left out), get_item (`?key=&namespace=a.b&refresh_ttl=false`),
  // delete_item (DELETE with a JSON body).
  it("store.put_item, get_item, delete_item", async () => {
    const namespace = ["py", randomUUID()];
    expect((await py("PUT", "/store/items", { json: { namespace, key: "k", value: { v: 1 } } })).status).toBe(204);
    const item = jsonOf<{ value: unknown }>(await py("GET", "/store/items", { params: { key: "k", namespace: namespace.join("."), refresh_ttl: false } }));
    expect(item.value).toEqual({ v: 1 });
    expect((await py("DELETE", "/store/items", { json: { key: "k", namespace } })).status).toBe(204);
    expect(jsonOf(await py("GET", "/store/items", { params: { key: "k", namespace: namespace.join(".") } }))).toBeNull();
  });

  // SyncStoreClient.search_items and list_namespaces: None-valued keys left out (_provided_vals).
  it("store.search_items and list_namespaces", async () => {
    const label = randomUUID();
    expect((await py("PUT", "/store/items", { json: { namespace: ["py", label], key: "k", value: { v: 2 } } })).status).toBe(204);
    const items = jsonOf<{ items: Array<{ key: string }> }>(
      await py("POST", "/store/items/search", { json: { namespace_prefix: ["py", label], limit: 10, offset: 0 } }),
    );
    expect(items.items.map((i) => i.key)).toEqual(["k"]);
    const namespaces = jsonOf<{ namespaces: string[][] }>(await py("POST", "/store/namespaces", { json: { prefix: ["py", label], limit: 100, offset: 0 } }));
    expect(namespaces.namespaces).toEqual([["py", label]]);
  });

  // SyncCronClient.create (end_time as Python's naive isoformat()), update (an explicit
  // `"end_time": null` clears it), search (None-valued keys dropped), delete.
  it("crons.create, update clearing end_time, search, delete", async () => {
    const cron = jsonOf<{ cron_id: string; end_time: string | null }>(
      await py("POST", "/runs/crons", {
        json: { schedule: "0 0 1 1 *", input: { text: "c" }, assistant_id: "echo", end_time: "2099-01-01T00:00:00", enabled: false },
      }),
    );
    expect(cron.end_time).toMatch(/^2099-01-01T00:00:00/);
    const updated = jsonOf<{ end_time: string | null }>(await py("PATCH", `/runs/crons/${cron.cron_id}`, { json: { enabled: false, end_time: null } }));
    expect(updated.end_time).toBeNull();
    const found = jsonOf<Array<{ cron_id: string }>>(await py("POST", "/runs/crons/search", { json: { assistant_id: "echo", limit: 10, offset: 0 } }));
    expect(found.map((c) => c.cron_id)).toContain(cron.cron_id);
    expect((await py("DELETE", `/runs/crons/${cron.cron_id}`)).status).toBeLessThan(300);
  });
});

describe("headers", () => {
  // _get_headers: x-api-key from LANGGRAPH_API_KEY / LANGSMITH_API_KEY is sent to every server;
  // one without auth ignores it.
  it("ignores the x-api-key the SDK sends from the environment when no auth is configured", async () => {
    const response = await py("POST", "/threads/search", { json: { limit: 1, offset: 0 }, headers: { "x-api-key": "lsv2_pt_not_for_gantry" } });
    expect(response.status, response.text).toBe(200);
  });
});
