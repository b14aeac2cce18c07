// The drop-in project's cases on the embedded SQLite default, and its loopback calls under custom
// auth: a Client without a URL acts for the user of the run or of the route that makes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { openSqliteStore } from "./backends.js";
import { describeDropInAppE2E } from "./dropin-app.cases.js";
import { fixture } from "./fixture-paths.js";
import { request } from "./http.js";

describeDropInAppE2E("sqlite", openSqliteStore);

describe("new Client() inside the server under custom auth", () => {
  let server: RunningGantry;
  const as = (token: string) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 }, defaultHeaders: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    server = await startGantry({ config: fixture("dropin-app", "langgraph.auth.json"), env: { BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0" } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("acts for the user whose run makes the call", async () => {
    const alice = as("token-alice");
    const output = (await alice.runs.wait(null, "delegate", { input: { text: "for alice" } })) as { answer: string; agent_thread: string };
    expect(output.answer).toBe("agent: for alice");
    expect(await alice.threads.get(output.agent_thread)).toMatchObject({ metadata: { owner: "alice", purpose: "delegated" } });
    await expect(as("token-bob").threads.get(output.agent_thread)).rejects.toThrow(/HTTP 404/);
  });

  it("acts for the authenticated caller of an http.app route (http.enable_custom_route_auth)", async () => {
    const response = await request(server.url, "POST", "/delegate", { body: { text: "routed" }, headers: { authorization: "Bearer token-bob" } });
    expect(response).toMatchObject({ status: 200, json: { result: { reply: "agent: routed" } } });
    const threadId = (response.json as { thread_id: string }).thread_id;
    expect(await as("token-bob").threads.get(threadId)).toMatchObject({ metadata: { owner: "bob", purpose: "route" } });
    await expect(as("token-alice").threads.get(threadId)).rejects.toThrow(/HTTP 404/);
  });

  it("authenticates the route's own request as any other", async () => {
    const response = await request(server.url, "POST", "/delegate", { body: { text: "nobody" } });
    expect(response.status).toBe(401);
  });
});
