// The routes around the API: health, info, request ids, kept connections, the generated OpenAPI
// document and docs page, metrics, CORS, and a user's own Hono app (`http.app`) served beside ours.
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { request, sdkClient } from "./http.js";

const PACKAGE_VERSION = (JSON.parse(readFileSync(fixture("..", "..", "package.json"), "utf8")) as { version: string }).version;

/** Every path and method of the assistants and threads API this server must serve (spec §1.1, §1.2). */
const API_ROUTES: Record<string, string[]> = {
  "/assistants": ["post"],
  "/assistants/search": ["post"],
  "/assistants/count": ["post"],
  "/assistants/{assistant_id}": ["get", "patch", "delete"],
  "/assistants/{assistant_id}/versions": ["post"],
  "/assistants/{assistant_id}/latest": ["post"],
  "/assistants/{assistant_id}/graph": ["get"],
  "/assistants/{assistant_id}/schemas": ["get"],
  "/assistants/{assistant_id}/subgraphs": ["get"],
  "/assistants/{assistant_id}/subgraphs/{namespace}": ["get"],
  "/threads": ["post"],
  "/threads/search": ["post"],
  "/threads/count": ["post"],
  "/threads/prune": ["post"],
  "/threads/{thread_id}": ["get", "patch", "delete"],
  "/threads/{thread_id}/copy": ["post"],
};
const META_ROUTES = ["/ok", "/info", "/metrics", "/openapi.json", "/docs"];

const SDK_HEADERS = ["Content-Location", "Location", "X-Pagination-Next", "X-Pagination-Total"];

let server: RunningGantry;

beforeAll(async () => {
  server = await startGantry({ config: fixture("custom-app", "langgraph.json") });
});

afterAll(async () => {
  await server?.stop();
});

describe("health and info", () => {
  it("answers /ok with ok: true", async () => {
    const response = await request(server.url, "GET", "/ok");
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ ok: true });
  });

  it("asks the database too with check_db=1", async () => {
    const response = await request(server.url, "GET", "/ok?check_db=1");
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ ok: true, services: { database: "ok" } });
  });

  it("reports the package version and which capabilities are on in /info", async () => {
    const response = await request(server.url, "GET", "/info");
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ version: PACKAGE_VERSION, flags: { assistants: true, threads: true } });
  });
});

describe("request ids", () => {
  it("echoes a sensible X-Request-Id on the answer, errors included, and makes one up otherwise", async () => {
    const sent = await request(server.url, "GET", "/info", { headers: { "X-Request-Id": "req-42_a=b" } });
    expect(sent.headers.get("x-request-id")).toBe("req-42_a=b");
    expect(sent.headers.get("content-type")).toMatch(/^application\/json/);

    const missing = await request(server.url, "GET", "/threads/not-a-uuid", { headers: { "X-Request-Id": "req-404" } });
    expect(missing.status).toBe(422);
    expect(missing.headers.get("x-request-id")).toBe("req-404");

    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect((await request(server.url, "GET", "/info")).headers.get("x-request-id")).toMatch(uuid);
    expect((await request(server.url, "GET", "/info", { headers: { "X-Request-Id": "has space" } })).headers.get("x-request-id")).toMatch(uuid);
  });
});

describe("connections", () => {
  it("keeps an idle keep-alive connection open past the clients' own expiry", async () => {
    const { host, hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ""));
    let received = "";
    let closed = false;
    socket.on("data", (data) => (received += data.toString()));
    socket.on("close", () => (closed = true));
    await new Promise((resolve) => socket.once("connect", resolve));
    const answers = () => received.match(/HTTP\/1\.1 200/g)?.length ?? 0;
    const ask = async (count: number) => {
      socket.write(`GET /ok HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      const deadline = Date.now() + 5_000;
      while (answers() < count && Date.now() < deadline) await new Promise((wait) => setTimeout(wait, 20));
      expect(answers()).toBe(count);
    };
    try {
      await ask(1);
      expect(received).toMatch(/keep-alive: timeout=65/i);
      // Node's default (5 s) would have closed it by now; Python's httpx keeps one for 5 s.
      await new Promise((wait) => setTimeout(wait, 6_000));
      expect(closed).toBe(false);
      await ask(2);
    } finally {
      socket.destroy();
    }
  }, 15_000);
});

describe("API description", () => {
  it("lists every assistants, threads and meta path with its methods in /openapi.json", async () => {
    const response = await request(server.url, "GET", "/openapi.json");
    expect(response.status).toBe(200);
    const document = response.json as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\./);
    for (const [path, methods] of Object.entries(API_ROUTES)) {
      expect(Object.keys(document.paths[path] ?? {}).sort(), path).toEqual([...methods].sort());
    }
    for (const path of META_ROUTES) expect(document.paths, path).toHaveProperty([path]);
  });

  it("describes each path's ids as path parameters and its JSON bodies", async () => {
    const document = (await request(server.url, "GET", "/openapi.json")).json as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; requestBody?: unknown }>>;
    };
    const patchThread = document.paths["/threads/{thread_id}"]?.patch;
    expect(patchThread?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "thread_id", in: "path" })]));
    expect(patchThread?.requestBody).toBeDefined();
    expect(document.paths["/assistants/search"]?.post?.requestBody).toBeDefined();
  });

  it("serves a human-readable page at /docs", async () => {
    const response = await request(server.url, "GET", "/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.text).toMatch(/<html/i);
    expect(response.text).toContain("/threads/{thread_id}/copy");
  });
});

describe("metrics", () => {
  const countOf = (text: string, method: string, route: string, status: number): number => {
    const line = text.split("\n").find((l) => l.startsWith(`gantry_http_requests_total{method="${method}",route="${route}",status="${status}"}`));
    return line ? Number(line.split(" ").pop()) : 0;
  };

  it("counts requests by route pattern and status in Prometheus text", async () => {
    const client = sdkClient(server.url);
    const { assistant_id } = await client.assistants.create({ graphId: "echo" });
    const before = (await request(server.url, "GET", "/metrics")).text;

    for (let i = 0; i < 3; i++) await client.assistants.get(assistant_id);
    await request(server.url, "GET", "/assistants/00000000-0000-4000-8000-000000000000");

    const response = await request(server.url, "GET", "/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.text).toContain("# TYPE gantry_http_requests_total counter");
    const route = "/assistants/:assistant_id";
    expect(countOf(response.text, "GET", route, 200) - countOf(before, "GET", route, 200)).toBe(3);
    expect(countOf(response.text, "GET", route, 404) - countOf(before, "GET", route, 404)).toBe(1);
    expect(response.text).toMatch(/gantry_http_request_duration_seconds_count\{method="GET",route="\/assistants\/:assistant_id",status="200"\} \d+/);
  });

  it("counts CORS preflights apart from requests that matched no route", async () => {
    const before = (await request(server.url, "GET", "/metrics")).text;
    await request(server.url, "OPTIONS", "/threads/search", { headers: { Origin: "https://a.example", "Access-Control-Request-Method": "POST" } });
    await request(server.url, "GET", "/no/such/route");
    const after = (await request(server.url, "GET", "/metrics")).text;
    expect(countOf(after, "OPTIONS", "preflight", 204) - countOf(before, "OPTIONS", "preflight", 204)).toBe(1);
    expect(countOf(after, "GET", "unmatched", 404) - countOf(before, "GET", "unmatched", 404)).toBe(1);
  });
});

describe("CORS", () => {
  it("answers a preflight and exposes the headers the SDKs read", async () => {
    const preflight = await request(server.url, "OPTIONS", "/threads/search", {
      headers: { Origin: "https://studio.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    const exposed = (preflight.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(/\s*,\s*/);
    for (const header of SDK_HEADERS) expect(exposed).toContain(header.toLowerCase());
  });

  it("exposes the same headers on the actual response", async () => {
    const response = await request(server.url, "POST", "/threads/search", { body: {}, headers: { Origin: "https://studio.example" } });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = (response.headers.get("access-control-expose-headers") ?? "").toLowerCase();
    for (const header of SDK_HEADERS) expect(exposed).toContain(header.toLowerCase());
  });

  it("adds no CORS headers to a request without Origin, as the platform does", async () => {
    const response = await request(server.url, "POST", "/threads/search", { body: {} });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(response.headers.get("access-control-expose-headers")).toBeNull();
  });

  it("puts the same headers on the responses of the user's http.app and on 404s", async () => {
    for (const path of ["/custom/hello", "/no/such/route"]) {
      const response = await request(server.url, "GET", path, { headers: { Origin: "https://studio.example" } });
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-expose-headers")).toContain("Content-Location");
    }
  });
});

describe("http.app", () => {
  it("serves the user's custom route beside the API", async () => {
    const custom = await request(server.url, "GET", "/custom/hello");
    expect(custom.status).toBe(200);
    expect(custom.json).toEqual({ hello: "from the user's app" });
    expect((await sdkClient(server.url).assistants.get("echo")).graph_id).toBe("echo");
  });

  it("leaves paths the user's app does not know to our routes and our 404", async () => {
    const missing = await request(server.url, "GET", "/custom/nothing-here");
    expect(missing.status).toBe(404);
    expect(missing.json).toHaveProperty("detail");
  });
});
