// Seeing what every run did (issue 36): LangSmith traces as the official `langsmith` client sends
// them, OpenTelemetry spans as an OTLP receiver decodes them, and the queue, worker and run
// figures on /metrics. One Gantry with both tracers on, pointed at stand-ins in this test, and a
// webhook receiver.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { request, sdkClient } from "./http.js";
import { langsmithReceiver, type LangSmithRecord, otlpReceiver, type ReceivedSpan, type Receiver } from "./observe-receivers.js";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver.js";

let server: RunningGantry;
let langsmith: Receiver<LangSmithRecord>;
let otlp: Receiver<ReceivedSpan>;
let webhooks: WebhookReceiver;

beforeAll(async () => {
  langsmith = await langsmithReceiver();
  otlp = await otlpReceiver();
  webhooks = await startReceiver();
  server = await startGantry({
    config: fixture("observe", "langgraph.json"),
    env: {
      LANGSMITH_TRACING: "true",
      LANGSMITH_API_KEY: "ls-test-key",
      LANGSMITH_ENDPOINT: langsmith.url,
      LANGSMITH_PROJECT: "gantry-default",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: "gantry-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      GANTRY_WEBHOOK_RETRY_BASE_MS: "20",
    },
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await langsmith?.close();
  await otlp?.close();
  await webhooks?.close();
});

/** The run's root as LangSmith has it once it ended: its create merged with its updates. */
async function langsmithRoot(runId: string): Promise<Record<string, unknown>> {
  await langsmith.waitFor((r) => r.run.id === runId && r.run.end_time !== undefined && r.run.end_time !== null);
  return Object.assign({}, ...langsmith.received.filter((r) => r.run.id === runId).map((r) => r.run)) as Record<string, unknown>;
}

describe("LangSmith tracing", () => {
  it("says so in /info", async () => {
    const info = await request(server.url, "GET", "/info");
    expect(info.json).toMatchObject({ flags: { langsmith: true } });
  });

  it("traces a run as one trace rooted at the run id, in the project and example the run names, with the platform's metadata and the run's tags", async () => {
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    const exampleId = randomUUID();
    // The SDK has no field for it: LangSmith's evaluation client sends it over plain HTTP.
    const created = await request(server.url, "POST", `/threads/${thread.thread_id}/runs`, {
      body: {
        assistant_id: "agent",
        input: { messages: [{ role: "user", content: "add 1 and 2" }] },
        metadata: { ticket: "T-36" },
        config: { tags: ["nightly"] },
        langsmith_tracer: { project_name: "experiments", example_id: exampleId },
      },
    });
    expect(created.status).toBe(200);
    const run = created.json as { run_id: string; assistant_id: string };
    await client.runs.join(thread.thread_id, run.run_id);

    const root = await langsmithRoot(run.run_id);
    expect(root).toMatchObject({ id: run.run_id, trace_id: run.run_id, session_name: "experiments", reference_example_id: exampleId });
    expect(root.parent_run_id ?? null).toBeNull();
    expect(root.tags).toContain("nightly");
    const metadata = (root.extra as { metadata: Record<string, unknown> }).metadata;
    expect(metadata).toMatchObject({
      thread_id: thread.thread_id,
      assistant_id: run.assistant_id,
      graph_id: "agent",
      run_id: run.run_id,
      run_attempt: 1,
      langgraph_host: "self-hosted",
      ticket: "T-36",
    });
    expect(metadata.langgraph_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(langsmith.received.every((r) => r.apiKey === "ls-test-key")).toBe(true);

    // The nodes, the model call and the tool call are children in the same trace and project.
    const children = langsmith.received.filter((r) => r.op === "post" && r.run.trace_id === run.run_id && r.run.id !== run.run_id);
    const names = children.map((r) => r.run.name);
    expect(names).toEqual(expect.arrayContaining(["model", "tools", "CountingModel", "add"]));
    expect(children.every((r) => r.run.session_name === "experiments")).toBe(true);
  });

  it("traces a run that names no project into LANGSMITH_PROJECT", async () => {
    const client = sdkClient(server.url);
    await client.runs.wait(null, "agent", { input: { messages: [{ role: "user", content: "hi" }] } });
    const created = await langsmith.waitFor((r) => r.op === "post" && r.run.session_name === "gantry-default" && r.run.parent_run_id == null);
    expect((created.run.extra as { metadata: Record<string, unknown> }).metadata).toMatchObject({ graph_id: "agent", run_attempt: 1 });
  });
});

describe("OpenTelemetry", () => {
  it("continues the caller's traceparent: a span for the request and, under it in the same trace, the run's queue, claim, execution, nodes, model and tool calls", async () => {
    const traceId = randomUUID().replace(/-/g, "");
    const callerSpan = randomUUID().replace(/-/g, "").slice(0, 16);
    const traceparent = `00-${traceId}-${callerSpan}-01`;
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    const created = await request(server.url, "POST", `/threads/${thread.thread_id}/runs`, {
      body: { assistant_id: "agent", input: { messages: [{ role: "user", content: "add" }] } },
      headers: { traceparent },
    });
    expect(created.status).toBe(200);
    const runId = (created.json as { run_id: string }).run_id;
    await client.runs.join(thread.thread_id, runId);

    const requestSpan = await otlp.waitFor((s) => s.traceId === traceId && s.kind === 2, 10_000);
    expect(requestSpan).toMatchObject({ parentSpanId: callerSpan, service: "gantry-under-test" });
    expect(requestSpan.attributes).toMatchObject({ "http.request.method": "POST", "http.response.status_code": 200 });

    const runSpan = await otlp.waitFor((s) => s.traceId === traceId && s.name === "run agent" && s.attributes["gantry.run.status"] !== undefined);
    expect(runSpan.parentSpanId).toBe(callerSpan);
    expect(runSpan.attributes).toMatchObject({ "gantry.run.id": runId, "gantry.thread.id": thread.thread_id, "gantry.run.status": "success" });
    const under = (parent: ReceivedSpan, name: string) => otlp.waitFor((s) => s.traceId === traceId && s.parentSpanId === parent.spanId && s.name === name);
    await under(runSpan, "queue");
    await under(runSpan, "claim");
    const execution = await under(runSpan, "execute");
    const model = await under(execution, "node model");
    const tools = await under(execution, "node tools");
    const chat = await otlp.waitFor((s) => s.traceId === traceId && s.parentSpanId === model.spanId && s.attributes["gen_ai.operation.name"] === "chat");
    expect(chat).toMatchObject({ name: "chat counting-1", kind: 3 });
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.model": "counting-1",
      "gen_ai.provider.name": "fixture",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
    });
    const tool = await otlp.waitFor((s) => s.traceId === traceId && s.parentSpanId === tools.spanId && s.name === "execute_tool add");
    expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "add" });
  });
});

describe("OpenTelemetry webhook deliveries", () => {
  it("sends a span per attempt in the run's trace: host, status, attempt and outcome, never the URL's path or query", async () => {
    const traceId = randomUUID().replace(/-/g, "");
    const callerSpan = randomUUID().replace(/-/g, "").slice(0, 16);
    webhooks.script(503);
    const created = await request(server.url, "POST", "/runs", {
      body: { assistant_id: "agent", input: { messages: [{ role: "user", content: "hi" }] }, webhook: `${webhooks.url}/hooks/secret-path?token=s3cret` },
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    expect(created.status).toBe(200);
    const runId = (created.json as { run_id: string }).run_id;
    const [, second] = await webhooks.waitFor(2);

    const attempt = (n: number) =>
      otlp.waitFor((s) => s.name === "webhook POST" && s.attributes["gantry.run.id"] === runId && s.attributes["gantry.webhook.attempt"] === n);
    const [retried, delivered] = [await attempt(1), await attempt(2)];
    const port = Number(new URL(webhooks.url).port);
    for (const span of [retried, delivered]) {
      expect(span).toMatchObject({ traceId, parentSpanId: callerSpan, kind: 3 });
      expect(span.attributes).toMatchObject({ "http.request.method": "POST", "server.address": "127.0.0.1", "server.port": port, "url.scheme": "http" });
      expect(JSON.stringify(span.attributes)).not.toMatch(/secret-path|s3cret/);
    }
    expect(retried.attributes).toMatchObject({ "http.response.status_code": 503, "gantry.webhook.outcome": "retry", "error.type": "503" });
    expect(delivered.attributes).toMatchObject({ "http.response.status_code": 200, "gantry.webhook.outcome": "delivered" });
    expect(delivered.attributes["gantry.webhook.delivery_id"]).toBe(retried.attributes["gantry.webhook.delivery_id"]);
    // The run's own span is in the same trace, under the same caller: the delivery sits beside it.
    const runSpan = await otlp.waitFor((s) => s.name === "run agent" && s.attributes["gantry.run.id"] === runId);
    expect(runSpan).toMatchObject({ traceId, parentSpanId: callerSpan });
    // The receiver can continue the trace from the attempt's span.
    expect(second!.headers.traceparent).toBe(`00-${traceId}-${delivered.spanId}-01`);
  });
});

describe("/metrics", () => {
  it("shows the platform's lg_api_* queue and worker gauges beside Gantry's run, stream and webhook figures", async () => {
    const client = sdkClient(server.url);
    await client.runs.wait(null, "agent", { input: { messages: [{ role: "user", content: "hi" }] } });
    const text = (await request(server.url, "GET", "/metrics")).text;
    for (const name of [
      "lg_api_num_pending_runs",
      "lg_api_num_running_runs",
      "lg_api_pending_runs_wait_time_max",
      "lg_api_workers_max",
      "lg_api_workers_active",
      "lg_api_workers_available",
    ]) {
      expect(text).toMatch(new RegExp(`^${name} \\d+(\\.\\d+)?$`, "m"));
    }
    expect(text).toMatch(/^lg_api_workers_max 10$/m);
    expect(text).toMatch(/^gantry_runs_finished_total\{status="success"\} [1-9]\d*$/m);
    expect(text).toMatch(/^gantry_run_duration_seconds_count\{status="success"\} [1-9]\d*$/m);
    expect(text).toMatch(/^gantry_run_queue_seconds_bucket\{queue="all",le="\+Inf"\} [1-9]\d*$/m);
    expect(text).toMatch(/^gantry_active_streams \d+$/m);
    expect(text).toMatch(/^gantry_webhook_attempts_total\{result="delivered"\} \d+$/m);

    const json = (await request(server.url, "GET", "/metrics?format=json")).json as Record<string, unknown>;
    expect(json).toMatchObject({
      queue: { n_pending: expect.any(Number), n_running: expect.any(Number) },
      workers: { max: 10 },
      active_streams: expect.any(Number),
    });
  });

  it("has every series the Grafana dashboard in docs/ queries", async () => {
    const dashboard = readFileSync(fixture("..", "..", "docs", "grafana-dashboard.json"), "utf8");
    const queried = new Set(dashboard.match(/\b(lg_api|gantry)_[a-z_]+/g));
    expect(queried.size).toBeGreaterThan(10);
    const text = (await request(server.url, "GET", "/metrics")).text;
    const served = new Set(text.match(/^[a-z_]+/gm));
    expect([...queried].filter((name) => !served.has(name))).toEqual([]);
  });

  it("counts a stream while it is open", async () => {
    const client = sdkClient(server.url);
    const thread = await client.threads.create();
    const controller = new AbortController();
    const response = await fetch(`${server.url}/threads/${thread.thread_id}/stream`, { signal: controller.signal, headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(200);
    const open = (await request(server.url, "GET", "/metrics?format=json")).json as { active_streams: number };
    expect(open.active_streams).toBeGreaterThanOrEqual(1);
    controller.abort();
  });
});
