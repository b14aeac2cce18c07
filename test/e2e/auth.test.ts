// Custom auth through the official SDK, each user a Client with their own Authorization header,
// against a real `gantry dev` serving test/fixtures/auth (see its src/auth.ts): authentication
// failures, the handlers' precedence, owner stamping, and the user reaching the graph and the
// runs made on their behalf (background runs, crons).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGantryExpectingFailure, startGantry, type RunningGantry } from "../support/gantry-process.js";
import { AUTH_CONFIG, clientFor } from "./auth-isolation.cases.js";
import { fixture } from "./fixture-paths.js";
import { detailOf, eventually, request } from "./http.js";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver.js";

const AUTH_OPENAPI_CONFIG = fixture("auth", "langgraph.openapi.json");

describe("custom auth", () => {
  let server: RunningGantry;
  let clockDir: string;
  let clockFile: string;
  let alice: Client;
  let carol: Client;
  let receiver: WebhookReceiver;
  const T0 = "2030-01-01T00:00:00.000Z";

  beforeAll(async () => {
    clockDir = await mkdtemp(join(tmpdir(), "gantry-auth-clock-"));
    clockFile = join(clockDir, "clock");
    await writeFile(clockFile, T0 + "\n");
    server = await startGantry({ config: AUTH_CONFIG, env: { GANTRY_CRON_CLOCK_FILE: clockFile, LOG_LEVEL: "debug" } });
    alice = clientFor(server.url, "token-alice");
    carol = clientFor(server.url, "token-carol");
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await rm(clockDir, { recursive: true, force: true });
  });

  describe("authentication", () => {
    it("answers 401 to a request without credentials", async () => {
      await expect(clientFor(server.url, null).threads.search()).rejects.toThrow(/HTTP 401/);
      const raw = await request(server.url, "POST", "/threads/search", { body: {} });
      expect(raw.status).toBe(401);
      expect(detailOf(raw)).toBe("Invalid or missing bearer token");
    });

    it("answers 401 to unknown credentials", async () => {
      await expect(clientFor(server.url, "token-mallory").assistants.search()).rejects.toThrow(/HTTP 401/);
    });

    it("passes an HTTPException's status, headers and message through", async () => {
      await expect(clientFor(server.url, "teapot").threads.create()).rejects.toThrow(/HTTP 418/);
      const raw = await request(server.url, "POST", "/threads", { body: {}, headers: { authorization: "Bearer teapot" } });
      expect(raw.status).toBe(418);
      expect(raw.headers.get("x-auth-reason")).toBe("teapot");
      expect(raw.headers.get("www-authenticate")).toBe("Bearer realm=tea");
      expect(raw.json).toEqual({ detail: "Short and stout" });
    });

    it("answers any other exception from authenticate with a generic 401 that quotes nothing of it", async () => {
      const raw = await request(server.url, "POST", "/threads/search", { body: {}, headers: { authorization: "Bearer crash" } });
      expect(raw.status).toBe(401);
      expect(detailOf(raw)).toMatch(/^Authentication failed/);
      expect(raw.text).not.toContain("hunter2");
      expect(server.output()).not.toContain("hunter2");
    });

    it("leaves /ok, /info and the API docs open, and protects everything else", async () => {
      expect((await request(server.url, "GET", "/ok")).status).toBe(200);
      expect((await request(server.url, "GET", "/info")).status).toBe(200);
      expect((await request(server.url, "GET", "/docs")).status).toBe(200);
      expect((await request(server.url, "GET", "/openapi.json")).status).toBe(200);
      for (const [method, path] of [
        ["GET", "/metrics"],
        ["POST", "/assistants/search"],
        ["POST", "/runs/crons/search"],
        ["POST", "/store/namespaces"],
        ["GET", "/threads/00000000-0000-4000-8000-000000000000"],
      ] as const) {
        expect((await request(server.url, method, path, method === "POST" ? { body: {} } : {})).status, `${method} ${path}`).toBe(401);
      }
    });

    it("serves the thread/run view's pages and files without credentials, since the page asks for them", async () => {
      for (const path of ["/gantry", "/gantry/threads"]) {
        const page = await request(server.url, "GET", path);
        expect(page.status, path).not.toBe(401);
      }
      expect((await request(server.url, "POST", "/gantry/threads", { body: {} })).status).toBe(401);
      // Generative UI: the POST naming a component is authenticated, the bundles it names are not.
      expect((await request(server.url, "POST", "/ui/agent", { body: { name: "card" } })).status).toBe(401);
      expect((await request(server.url, "GET", "/ui/agent/entrypoint.js")).status).toBe(404);
    });

    it("never lets x-auth-scheme stand in for credentials", async () => {
      const raw = await request(server.url, "POST", "/threads/search", { body: {}, headers: { "x-auth-scheme": "langsmith" } });
      expect(raw.status).toBe(401);
    });

    it("describes the security scheme in /openapi.json, with the open routes marked as such", async () => {
      const doc = (await request(server.url, "GET", "/openapi.json")).json as {
        components: { securitySchemes?: Record<string, { type: string }> };
        security?: unknown[];
        paths: Record<string, Record<string, { security?: unknown[] }>>;
      };
      expect(doc.components.securitySchemes).toEqual({ custom_auth: expect.objectContaining({ type: "http", scheme: "bearer" }) });
      expect(doc.security).toEqual([{ custom_auth: [] }]);
      expect(doc.paths["/ok"]?.get?.security).toEqual([]);
      expect(doc.paths["/threads"]?.post?.security).toBeUndefined();
    });
  });

  describe("authorization handlers", () => {
    it("runs the most specific handler: resource:action, then resource, then *:action, then *", async () => {
      const assistant = await alice.assistants.create({ graphId: "agent" });
      const thread = await alice.threads.create();
      const cron = await alice.crons.createForThread(thread.thread_id, assistant.assistant_id, { schedule: "0 0 1 1 *" });
      const run = await alice.runs.create(thread.thread_id, assistant.assistant_id, { input: {} });
      expect(thread.metadata).toMatchObject({ handled_by: "threads:create" });
      expect(assistant.metadata).toMatchObject({ handled_by: "assistants" });
      expect(cron.metadata).toMatchObject({ handled_by: "*:create" });
      expect(run.metadata).toMatchObject({ handled_by: "*" });
      await alice.runs.join(thread.thread_id, run.run_id);
    });

    it("answers 403 when a handler returns false", async () => {
      const thread = await carol.threads.create();
      await expect(carol.threads.delete(thread.thread_id)).rejects.toThrow(/HTTP 403/);
      expect((await carol.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    });

    it("passes an HTTPException thrown by a handler through with its status and headers", async () => {
      const thread = await alice.threads.create();
      await expect(alice.threads.update(thread.thread_id, { metadata: { teapot: true } })).rejects.toThrow(/HTTP 418/);
      const raw = await request(server.url, "PATCH", `/threads/${thread.thread_id}`, {
        body: { metadata: { teapot: true } },
        headers: { authorization: "Bearer token-alice" },
      });
      expect(raw.status).toBe(418);
      expect(raw.headers.get("x-handler")).toBe("threads:update");
      expect(raw.json).toEqual({ detail: "No tea here" });
    });

    it("persists the owner a handler stamps, whatever the client sent, and filters on it", async () => {
      const thread = await alice.threads.create({ metadata: { owner: "bob", topic: "tea" } });
      expect(thread.metadata).toMatchObject({ owner: "alice", topic: "tea" });
      expect((await alice.threads.get(thread.thread_id)).metadata).toMatchObject({ owner: "alice" });
      const patched = await alice.threads.update(thread.thread_id, { metadata: { owner: "carol" } });
      expect(patched.metadata).toMatchObject({ owner: "alice" });
      const carolsView = await carol.threads.search({ metadata: { topic: "tea" } });
      expect(carolsView.map((t) => t.thread_id)).not.toContain(thread.thread_id);
      await expect(carol.threads.get(thread.thread_id)).rejects.toThrow(/HTTP 404/);
    });

    it("lets a handler rewrite a store namespace, which the server honours", async () => {
      await alice.store.putItem(["notes"], "n1", { text: "mine" });
      expect((await alice.store.getItem(["notes"], "n1"))?.value).toEqual({ text: "mine" });
      const namespaces = await alice.store.listNamespaces();
      expect(namespaces.namespaces).toContainEqual(["alice", "notes"]);
      expect(await carol.store.getItem(["notes"], "n1")).toBeNull();
    });

    it("refuses with 403 a new store item whose value the handler's filter would not match", async () => {
      await expect(alice.store.putItem(["strict"], "s1", { text: "no owner" })).rejects.toThrow(/HTTP 403/);
      await expect(alice.store.putItem(["strict"], "s1", { text: "carol's", owner: "carol" })).rejects.toThrow(/HTTP 403/);
      await alice.store.putItem(["strict"], "s1", { text: "mine", owner: "alice" });
      expect((await alice.store.getItem(["strict"], "s1"))?.value).toEqual({ text: "mine", owner: "alice" });
      await expect(carol.store.getItem(["strict"], "s1")).rejects.toThrow(/HTTP 404/);
    });
  });

  describe("the user reaches the graph", () => {
    it("gives a waited run the user's identity, permissions and user object, whatever the client claimed", async () => {
      const assistant = await alice.assistants.create({ graphId: "agent" });
      const values = (await alice.runs.wait(null, assistant.assistant_id, {
        input: {},
        config: { configurable: { langgraph_auth_user_id: "mallory", langgraph_auth_permissions: ["admin"] } },
      })) as Record<string, unknown>;
      expect(values).toMatchObject({ user_id: "alice", permissions: ["delete"], display_name: "Alice A." });
    });

    it("keeps the creator on a background run, which acts as them, and its webhook says so", async () => {
      const assistant = await alice.assistants.create({ graphId: "agent" });
      const thread = await alice.threads.create();
      const webhook = `${receiver.url}/background/${thread.thread_id}`;
      const run = await alice.runs.create(thread.thread_id, assistant.assistant_id, { input: {}, webhook });
      expect((run as unknown as { kwargs: unknown }).kwargs).toMatchObject({ config: { configurable: { langgraph_auth_user_id: "alice", user_id: "alice" } } });
      await alice.runs.join(thread.thread_id, run.run_id);
      expect((await alice.threads.getState(thread.thread_id)).values).toMatchObject({ user_id: "alice", display_name: "Alice A." });
      const hook = await eventually("the run's webhook", async () => receiver.received.find((r) => r.path === `/background/${thread.thread_id}`));
      expect(hook.json).toMatchObject({
        run_id: run.run_id,
        status: "success",
        values: { user_id: "alice" },
        kwargs: { config: { configurable: { langgraph_auth_user_id: "alice", langgraph_auth_permissions: ["delete"] } } },
      });
    });

    it("stores a cron's creator, and the runs it fires act as them", async () => {
      const assistant = await alice.assistants.create({ graphId: "agent" });
      const thread = await alice.threads.create();
      const webhook = `${receiver.url}/cron/${thread.thread_id}`;
      const cron = await alice.crons.createForThread(thread.thread_id, assistant.assistant_id, { schedule: "* * * * *", input: {}, webhook });
      expect(cron.user_id).toBe("alice");
      await writeFile(clockFile, "2030-01-01T00:01:30.000Z\n");
      const [fired] = await eventually("the cron's run", async () => {
        const runs = await alice.runs.list(thread.thread_id);
        return runs.length > 0 ? runs : undefined;
      });
      await alice.runs.join(thread.thread_id, fired!.run_id);
      expect(fired!.metadata).toMatchObject({ cron_id: cron.cron_id, owner: "alice" });
      expect((fired as unknown as { kwargs: unknown }).kwargs).toMatchObject({ config: { configurable: { user_id: "alice" } } });
      expect((await alice.threads.getState(thread.thread_id)).values).toMatchObject({ user_id: "alice", permissions: ["delete"] });
      const hook = await eventually("the cron run's webhook", async () => receiver.received.find((r) => r.path === `/cron/${thread.thread_id}`));
      expect(hook.json).toMatchObject({ run_id: fired!.run_id, values: { user_id: "alice" } });
      await alice.crons.delete(cron.cron_id);
    });
  });
});

describe("custom auth with auth.openapi", () => {
  let server: RunningGantry;

  beforeAll(async () => {
    server = await startGantry({ config: AUTH_OPENAPI_CONFIG });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("shows the security schemes langgraph.json gives", async () => {
    const doc = (await request(server.url, "GET", "/openapi.json")).json as { components: { securitySchemes?: unknown }; security?: unknown };
    expect(doc.components.securitySchemes).toEqual({ apiKeyAuth: { type: "apiKey", in: "header", name: "x-api-key" } });
    expect(doc.security).toEqual([{ apiKeyAuth: [] }]);
  });
});

describe("custom auth configuration", () => {
  it("refuses to start when auth.path does not name an Auth object, naming the file and the fix", async () => {
    const run = await runGantryExpectingFailure(["dev", "--config", fixture("broken", "not-an-auth", "langgraph.json"), "--port", "0"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("auth.path: 'auth' exported from");
    expect(run.stderr).toContain("is not an Auth object (create it with new Auth() from @langchain/langgraph-sdk/auth)");
  });
});

describe("custom auth from another copy of the SDK", () => {
  let server: RunningGantry;

  beforeAll(async () => {
    server = await startGantry({ config: fixture("auth-own-sdk", "langgraph.json") });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("recognises the Auth object and its HTTPException by their shape", async () => {
    const refused = await request(server.url, "POST", "/threads", { body: {} });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("x-copy")).toBe("other");
    expect(refused.json).toEqual({ detail: "Send x-api-key" });

    const ann = new Client({ apiUrl: server.url, apiKey: "ann", callerOptions: { maxRetries: 0 } });
    const ben = new Client({ apiUrl: server.url, apiKey: "ben", callerOptions: { maxRetries: 0 } });
    const thread = await ann.threads.create();
    expect(thread.metadata).toMatchObject({ owner: "ann" });
    await expect(ben.threads.get(thread.thread_id)).rejects.toThrow(/HTTP 404/);
  });
});
