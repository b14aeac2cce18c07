// `http.disable_threads`, `http.disable_meta` and `http.disable_ui`: the disabled groups are gone (404), the rest of
// the server is unchanged, and /ok stays for health checks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { request, sdkClient } from "./http.js";

let server: RunningGantry;

beforeAll(async () => {
  server = await startGantry({ config: fixture("disabled", "langgraph.json") });
});

afterAll(async () => {
  await server?.stop();
});

describe("disable_threads", () => {
  it("answers 404 on every threads route", async () => {
    const client = sdkClient(server.url);
    await expect(client.threads.create()).rejects.toThrow(/HTTP 404/);
    await expect(client.threads.search()).rejects.toThrow(/HTTP 404/);
    await expect(client.threads.get("00000000-0000-4000-8000-000000000000")).rejects.toThrow(/HTTP 404/);
  });

  it("answers 404 on the protocol (v2) routes too", async () => {
    const threadId = "00000000-0000-4000-8000-000000000000";
    const command = await request(server.url, "POST", `/threads/${threadId}/commands`, { body: { id: 1, method: "state.get", params: {} } });
    expect(command.status).toBe(404);
    expect(command.json).toEqual({ detail: `No route for POST /threads/${threadId}/commands` });
    const events = await request(server.url, "POST", `/threads/${threadId}/stream/events`, { body: { channels: ["values"] } });
    expect(events.status).toBe(404);
  });

  it("keeps the assistants routes", async () => {
    const client = sdkClient(server.url);
    const assistant = await client.assistants.create({ graphId: "echo" });
    expect((await client.assistants.get(assistant.assistant_id)).graph_id).toBe("echo");
  });
});

describe("disable_meta", () => {
  it.each(["/info", "/docs", "/openapi.json", "/metrics"])("removes %s", async (path) => {
    const response = await request(server.url, "GET", path);
    expect(response.status).toBe(404);
    expect(response.json).toHaveProperty("detail");
  });

  it("keeps /ok", async () => {
    const response = await request(server.url, "GET", "/ok");
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ ok: true });
  });
});

describe("disable_ui", () => {
  it.each(["/ui", "/ui/threads"])("removes %s", async (path) => {
    const response = await request(server.url, "GET", path);
    expect(response.status).toBe(404);
    expect(response.json).toEqual({ detail: `No route for GET ${path}` });
  });
});
