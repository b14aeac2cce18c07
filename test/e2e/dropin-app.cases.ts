// A LangGraph.js project written for the platform, served as it is (test/fixtures/dropin-app): its
// http.app with its own notFound and onError, a middleware that reads and amends run requests and
// one that sets a header after `await next()`; graphs that take getLogger() at import and one
// that calls its own deployment through `new Client()`. Driven through the official SDK.
import { describe, expect, it } from "vitest";
import { Client as SdkClient } from "@langchain/langgraph-sdk";
import type { RunningGantry } from "../support/gantry-process.js";
import type { Backend, OpenStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { eventually, request } from "./http.js";
import { collect, framesNamed } from "./runs-support.js";

export const DROPIN_CONFIG = fixture("dropin-app", "langgraph.json");
const ENV = { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0", LOG_LEVEL: "info" };

type LogLine = Record<string, unknown> & { msg: string };

/** The server's JSON log lines with this message. */
export function logLines(server: RunningGantry, msg: string): LogLine[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.msg === msg);
}

export function describeDropInAppE2E(backend: Backend, open: OpenStore): void {
  describe(`a project written for the platform, on ${backend}`, () => {
    const gantry = useGantry(open, DROPIN_CONFIG, ENV);

    describe("http.app composed with the API", () => {
      it("serves the SDK's calls although the app has its own notFound and onError", async () => {
        const assistants = await gantry.client.assistants.search({ graphId: "agent" });
        expect(assistants.map((a) => a.graph_id)).toEqual(["agent"]);
        const thread = await gantry.client.threads.create({ metadata: { case: "sdk" } });
        expect(await gantry.client.threads.get(thread.thread_id)).toMatchObject({ thread_id: thread.thread_id, metadata: { case: "sdk" } });
        expect(await gantry.client.runs.wait(thread.thread_id, "agent", { input: { text: "hi" } })).toEqual({ text: "hi", reply: "agent: hi" });
        // The API's own refusals stay the API's, not the app's onError or notFound.
        await expect(gantry.client.threads.get("00000000-0000-4000-8000-000000000000")).rejects.toThrow(/HTTP 404.*not found/);
      });

      it("answers with the app's routes and its onError for them; a path neither knows gets the API's 404", async () => {
        const hello = await request(gantry.server.url, "GET", "/hello");
        expect(hello).toMatchObject({ status: 200, json: { hello: "from the project's app" } });
        const boom = await request(gantry.server.url, "GET", "/boom");
        expect(boom).toMatchObject({ status: 500, json: { error: "project error: the project's route broke" } });
        const unknown = await request(gantry.server.url, "GET", "/no/such/page");
        expect(unknown).toMatchObject({ status: 404, json: { detail: "No route for GET /no/such/page" } });
      });

      it("lets a middleware read a run request's body and amend it before the API takes it", async () => {
        const thread = await gantry.client.threads.create();
        const run = await gantry.client.runs.create(thread.thread_id, "agent", { input: { text: "create" }, metadata: { origin: "e2e" } });
        expect(run.metadata).toEqual({ origin: "e2e", reviewed: true });
        expect(await gantry.client.runs.join(thread.thread_id, run.run_id)).toEqual({ text: "create", reply: "agent: create" });

        expect(await gantry.client.runs.wait(null, "agent", { input: { text: "stateless" } })).toEqual({ text: "stateless", reply: "agent: stateless" });
        const frames = await collect(gantry.client.runs.stream(thread.thread_id, "agent", { input: { text: "streamed" }, streamMode: "values" }));
        expect(framesNamed(frames, "values").at(-1)?.data).toEqual({ text: "streamed", reply: "agent: streamed" });
        const runs = await gantry.client.runs.list(thread.thread_id);
        expect(runs.map((r) => r.metadata?.reviewed)).toEqual([true, true]);
      });

      it("lets the middleware refuse a run request with its own answer", async () => {
        const thread = await gantry.client.threads.create();
        await expect(gantry.client.runs.wait(thread.thread_id, "agent", { input: { text: "forbidden" } })).rejects.toThrow(
          /HTTP 400.*This text is not allowed/,
        );
        expect(await gantry.client.runs.list(thread.thread_id)).toEqual([]);
      });

      it("puts the header a middleware sets after await next() on the API's answers, streams and errors included", async () => {
        const created = await request(gantry.server.url, "POST", "/threads", { body: {} });
        expect(created.status).toBe(200);
        expect(created.headers.get("x-served-by")).toBe("dropin-app");
        const missing = await request(gantry.server.url, "GET", "/threads/00000000-0000-4000-8000-000000000000");
        expect(missing.status).toBe(404);
        expect(missing.headers.get("x-served-by")).toBe("dropin-app");

        const stream = await fetch(`${gantry.server.url}/runs/stream`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ assistant_id: "agent", input: { text: "sse" } }),
        });
        expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
        expect(stream.headers.get("x-served-by")).toBe("dropin-app");
        expect(await stream.text()).toContain("agent: sse");
      });
    });

    it("puts every x-* request header and user-agent into the run's configurable, never the secret ones", async () => {
      const withHeaders = new SdkClient({
        apiUrl: gantry.server.url,
        callerOptions: { maxRetries: 0 },
        defaultHeaders: {
          "x-user-id": "u-1",
          "x-organization-id": "org-7",
          "user-agent": "dropin-e2e",
          "x-api-key": "key",
          "x-tenant-id": "t-1",
          "x-service-key": "s",
        },
      });
      const output = (await withHeaders.runs.wait(null, "inspect", { input: {} })) as { headers: Record<string, unknown> };
      expect(output.headers).toMatchObject({ "x-user-id": "u-1", "x-organization-id": "org-7", "user-agent": "dropin-e2e" });
      expect(output.headers).not.toHaveProperty("x-api-key");
      expect(output.headers).not.toHaveProperty("x-tenant-id");
      expect(output.headers).not.toHaveProperty("x-service-key");
    });

    it("hands the graphs the platform's logger: lines logged at import and in a node reach the log, the node's with the run's ids", async () => {
      expect(logLines(gantry.server, "agent graph loaded")).toEqual([expect.objectContaining({ level: "info", version: 3 })]);
      const thread = await gantry.client.threads.create();
      const run = await gantry.client.runs.create(thread.thread_id, "agent", { input: { text: "logged" } });
      await gantry.client.runs.join(thread.thread_id, run.run_id);
      const line = await eventually("the node's log line", async () => logLines(gantry.server, "replying").find((l) => l.run_id === run.run_id));
      expect(line).toMatchObject({ level: "info", chars: 6, thread_id: thread.thread_id, graph_id: "agent", langgraph_node: "answer" });
    });

    it("lets a graph call its own deployment with a Client made without a URL", async () => {
      const output = (await gantry.client.runs.wait(null, "delegate", { input: { text: "delegated" } })) as { answer: string; agent_thread: string };
      expect(output.answer).toBe("agent: delegated");
      const agentThread = await gantry.client.threads.get(output.agent_thread);
      expect(agentThread).toMatchObject({ status: "idle", metadata: { purpose: "delegated", graph_id: "agent" } });
      expect(agentThread.values).toEqual({ text: "delegated", reply: "agent: delegated" });
    });

    it("lets an http.app route call its own deployment with a Client made without a URL", async () => {
      const response = await request(gantry.server.url, "POST", "/delegate", { body: { text: "routed" } });
      expect(response).toMatchObject({ status: 200, json: { result: { text: "routed", reply: "agent: routed" } } });
      const threadId = (response.json as { thread_id: string }).thread_id;
      expect(await gantry.client.threads.get(threadId)).toMatchObject({ metadata: { purpose: "route" } });
    });
  });
}
