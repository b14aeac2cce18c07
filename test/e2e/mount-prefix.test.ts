// `http.mount_prefix`: the whole server moves under the prefix, and an SDK client whose apiUrl
// includes it works unchanged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { request, sdkClient } from "./http.js";

const PREFIX = "/gantry/api";

let server: RunningGantry;
let origin: string;

beforeAll(async () => {
  server = await startGantry({ config: fixture("mount-prefix", "langgraph.json") });
  origin = new URL(server.url).origin;
});

afterAll(async () => {
  await server?.stop();
});

describe("mount_prefix", () => {
  it("logs a URL that includes the prefix", () => {
    expect(server.url).toBe(`${origin}${PREFIX}`);
  });

  it("serves the SDK under the prefix", async () => {
    const client = sdkClient(server.url);
    const assistant = await client.assistants.create({ graphId: "echo", name: "prefixed" });
    expect((await client.assistants.search({ name: "prefixed" })).map((a) => a.assistant_id)).toEqual([assistant.assistant_id]);
    const thread = await client.threads.create({ metadata: { via: "prefix" } });
    expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ via: "prefix" });
  });

  it("serves health, info and the OpenAPI document under the prefix, with prefixed paths", async () => {
    expect((await request(origin, "GET", `${PREFIX}/ok`)).json).toMatchObject({ ok: true });
    expect((await request(origin, "GET", `${PREFIX}/info`)).status).toBe(200);
    const document = (await request(origin, "GET", `${PREFIX}/openapi.json`)).json as { paths: Record<string, unknown> };
    expect(document.paths).toHaveProperty([`${PREFIX}/threads/{thread_id}`]);
  });

  it("answers 404 with a detail outside the prefix", async () => {
    for (const path of ["/ok", "/assistants/search", "/threads"]) {
      const response = await request(origin, "POST", path, { body: {} });
      expect(response.status, path).toBe(404);
      expect(response.json, path).toHaveProperty("detail");
    }
  });

  it("serves the user's http.app routes under the prefix too", async () => {
    const response = await request(origin, "GET", `${PREFIX}/custom/hello`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ hello: "from the user's app" });
  });
});
