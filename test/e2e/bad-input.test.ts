// Every assistants and threads route, sent what a careless or hostile client sends, over real HTTP:
// each answer is a deterministic 4xx (never a 500, which the SDK would retry) with a JSON
// `{detail}` that says what is wrong and where, and a refused request writes nothing.
import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGantry, type RunningGantry } from "../support/gantry-process.js";
import { GRAPHS_CONFIG } from "./fixture-paths.js";
import { detailOf, request, type RawResponse } from "./http.js";

const BODY_LIMIT_BYTES = 1024;

let server: RunningGantry;
let assistantId: string;
let threadId: string;

beforeAll(async () => {
  server = await startGantry({ config: GRAPHS_CONFIG, env: { HTTP_MAX_REQUEST_BODY_BYTES: String(BODY_LIMIT_BYTES) } });
  const assistant = await request(server.url, "POST", "/assistants", { body: { graph_id: "echo", metadata: { n: 1 } } });
  assistantId = (assistant.json as { assistant_id: string }).assistant_id;
  const thread = await request(server.url, "POST", "/threads", { body: { metadata: { n: 1 } } });
  threadId = (thread.json as { thread_id: string }).thread_id;
});

afterAll(async () => {
  await server?.stop();
});

const send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(server.url, method, path, { body, ...(headers ? { headers } : {}) });

/** A refusal as users must see it: the status, a JSON body whose detail names `mentions`, no internals. */
function expectRefusal(response: RawResponse, status: number, mentions?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const detail = detailOf(response);
  expect(detail.length).toBeGreaterThan(0);
  expect(detail).not.toMatch(/\n\s+at |node_modules|SQLITE|syntax error at/i);
  if (mentions !== undefined) expect(detail).toContain(mentions);
}

interface BodyRoute {
  name: string;
  method: string;
  path: () => string;
  /** A body this route accepts, used as the base for the bad ones. */
  valid: () => Record<string, unknown>;
  /** A field and a value of the wrong type for it. */
  wrongType: [field: string, value: unknown];
}

const BODY_ROUTES: BodyRoute[] = [
  { name: "POST /assistants", method: "POST", path: () => "/assistants", valid: () => ({ graph_id: "echo" }), wrongType: ["metadata", 5] },
  { name: "POST /assistants/search", method: "POST", path: () => "/assistants/search", valid: () => ({}), wrongType: ["limit", "ten"] },
  { name: "POST /assistants/count", method: "POST", path: () => "/assistants/count", valid: () => ({}), wrongType: ["metadata", 5] },
  { name: "PATCH /assistants/{id}", method: "PATCH", path: () => `/assistants/${assistantId}`, valid: () => ({ name: "x" }), wrongType: ["name", 5] },
  {
    name: "POST /assistants/{id}/versions",
    method: "POST",
    path: () => `/assistants/${assistantId}/versions`,
    valid: () => ({}),
    wrongType: ["offset", "first"],
  },
  {
    name: "POST /assistants/{id}/latest",
    method: "POST",
    path: () => `/assistants/${assistantId}/latest`,
    valid: () => ({ version: 1 }),
    wrongType: ["version", "one"],
  },
  { name: "POST /threads", method: "POST", path: () => "/threads", valid: () => ({}), wrongType: ["metadata", 5] },
  { name: "POST /threads/search", method: "POST", path: () => "/threads/search", valid: () => ({}), wrongType: ["limit", "ten"] },
  { name: "POST /threads/count", method: "POST", path: () => "/threads/count", valid: () => ({}), wrongType: ["status", 5] },
  {
    name: "POST /threads/prune",
    method: "POST",
    path: () => "/threads/prune",
    valid: () => ({ thread_ids: [] }),
    wrongType: ["thread_ids", "abc"],
  },
  { name: "PATCH /threads/{id}", method: "PATCH", path: () => `/threads/${threadId}`, valid: () => ({}), wrongType: ["metadata", 5] },
];

const LIMITED_ROUTES = BODY_ROUTES.filter((r) => ["/assistants/search", "/versions", "/threads/search"].some((p) => r.name.endsWith(p)));

describe("request bodies", () => {
  it.each(BODY_ROUTES)("$name answers 400 to malformed JSON", async (route) => {
    expectRefusal(await send(route.method, route.path(), '{"graph_id": "echo",'), 400, "not valid JSON");
  });

  // An unknown field beside it does not change the answer: the known field is what is wrong.
  it.each(BODY_ROUTES)("$name answers 422 naming the field sent with the wrong type", async (route) => {
    const [field, value] = route.wrongType;
    expectRefusal(await send(route.method, route.path(), { ...route.valid(), [field]: value, colour: "blue" }), 422, `'${field}'`);
  });

  // As the official server does: a newer SDK's new fields must not break an older server.
  it.each(BODY_ROUTES)("$name ignores an unknown field", async (route) => {
    const response = await send(route.method, route.path(), { ...route.valid(), colour: "blue" });
    expect(response.status, response.text).toBeLessThan(300);
    expect(response.text).not.toContain("colour");
  });

  it.each(BODY_ROUTES)("$name answers 413 to a body over HTTP_MAX_REQUEST_BODY_BYTES", async (route) => {
    const padding = "x".repeat(BODY_LIMIT_BYTES * 2);
    expectRefusal(await send(route.method, route.path(), { ...route.valid(), metadata: { padding } }), 413);
  });

  // A chunked body declares no length: it is read, and counted, before the route sees it.
  it("reads a chunked body within HTTP_MAX_REQUEST_BODY_BYTES and answers 413 to one over it", async () => {
    const postChunked = async (body: unknown) => {
      const text = JSON.stringify(body);
      const chunks = [text.slice(0, 20), text.slice(20)].map((part) => new TextEncoder().encode(part));
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      });
      const response = await fetch(`${server.url}/threads`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const accepted = await postChunked({ metadata: { sent: "in chunks" } });
    expect(accepted.status).toBe(200);
    expect(accepted.json.metadata).toEqual({ sent: "in chunks" });

    const refused = await postChunked({ metadata: { padding: "x".repeat(BODY_LIMIT_BYTES * 2) } });
    expect(refused.status).toBe(413);
    expect(refused.json.detail).toContain("HTTP_MAX_REQUEST_BODY_BYTES");
  });

  // The body is read from Node's request as it arrives, whole or in parts; one the client abandons
  // ends the request quietly.
  it("reads a declared-length body sent with its headers or in two parts, and outlives a client that leaves mid-body", async () => {
    const { host, hostname, port } = new URL(server.url);
    const text = JSON.stringify({ metadata: { sent: "in two parts" } });
    const head = `POST /threads HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n`;
    const exchange = (parts: string[], leave: boolean) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ""));
        let answer = "";
        socket.on("data", (data) => (answer += data.toString()));
        socket.on("close", () => resolve(answer));
        socket.on("error", reject);
        socket.once("connect", async () => {
          for (const part of parts) {
            socket.write(part);
            await new Promise((wait) => setTimeout(wait, 100));
          }
          if (leave) socket.destroy();
        });
      });

    const metadataOf = (answer: string) => {
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      return JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).metadata;
    };
    expect(metadataOf(await exchange([head + text], false))).toEqual({ sent: "in two parts" });
    expect(metadataOf(await exchange([head + text.slice(0, 10), text.slice(10)], false))).toEqual({ sent: "in two parts" });

    await exchange([head + text.slice(0, 10)], true);
    expect((await send("GET", "/ok")).status).toBe(200);
  });

  it.each(LIMITED_ROUTES.flatMap((route) => [0, 1001, -1].map((limit) => ({ ...route, limit }))))("$name answers 422 to limit $limit", async (route) => {
    expectRefusal(await send(route.method, route.path(), { ...route.valid(), limit: route.limit }), 422, "'limit'");
  });

  it.each(LIMITED_ROUTES)("$name answers 422 to a negative offset", async (route) => {
    expectRefusal(await send(route.method, route.path(), { ...route.valid(), offset: -1 }), 422, "'offset'");
  });

  it("answers 422 naming a required field that is missing", async () => {
    expectRefusal(await send("POST", "/assistants", {}), 422, "'graph_id'");
    expectRefusal(await send("POST", "/threads/prune", {}), 422, "'thread_ids'");
    expectRefusal(await send("POST", `/assistants/${assistantId}/latest`, {}), 422, "'version'");
  });

  it("answers 422 naming fields whose values are out of their set", async () => {
    expectRefusal(await send("POST", "/assistants", { graph_id: "echo", if_exists: "overwrite" }), 422, "'if_exists'");
    expectRefusal(await send("POST", "/assistants/search", { sort_by: "colour" }), 422, "'sort_by'");
    expectRefusal(await send("POST", "/assistants/search", { sort_order: "sideways" }), 422, "'sort_order'");
    expectRefusal(await send("POST", "/assistants/search", { select: ["colour"] }), 422, "'select[0]'");
    expectRefusal(await send("POST", "/threads/search", { status: "sleeping" }), 422, "'status'");
    expectRefusal(await send("POST", "/threads/search", { sort_by: "name" }), 422, "'sort_by'");
    expectRefusal(await send("POST", "/threads/search", { select: ["colour"] }), 422, "'select[0]'");
    expectRefusal(await send("POST", "/threads", { ttl: -5 }), 422, "'ttl'");
    expectRefusal(await send("POST", "/threads", { ttl: { strategy: "forever", ttl: 5 } }), 422, "'ttl");
    expectRefusal(await send("POST", "/threads/prune", { thread_ids: [], strategy: "shred" }), 422, "'strategy'");
    expectRefusal(await send("POST", `/assistants/${assistantId}/latest`, { version: 0 }), 422, "'version'");
  });

  it("answers 422 naming body ids that are not UUIDs", async () => {
    expectRefusal(await send("POST", "/assistants", { graph_id: "echo", assistant_id: "nope" }), 422, "'assistant_id'");
    expectRefusal(await send("POST", "/threads", { thread_id: "nope" }), 422, "'thread_id'");
    expectRefusal(await send("POST", "/threads/search", { ids: ["nope"] }), 422, "'ids[0]'");
    expectRefusal(await send("POST", "/threads/prune", { thread_ids: ["nope"] }), 422, "'thread_ids[0]'");
  });

  it("answers 422 to a JSON body that is not an object", async () => {
    expectRefusal(await send("POST", "/assistants/search", [1, 2]), 422);
    expectRefusal(await send("POST", "/threads", "42"), 422);
  });
});

describe("query parameters", () => {
  it("answers 422 naming a boolean parameter that is not true, false, 1 or 0", async () => {
    expectRefusal(await send("DELETE", `/assistants/${assistantId}?delete_threads=maybe`), 422, "'delete_threads'");
    expectRefusal(await send("GET", `/assistants/${assistantId}/subgraphs?recurse=maybe`), 422, "'recurse'");
    expectRefusal(await send("GET", `/assistants/${assistantId}/subgraphs/child?recurse=maybe`), 422, "'recurse'");
  });

  it("answers 422 naming xray when it is neither a boolean nor a depth", async () => {
    expectRefusal(await send("GET", `/assistants/${assistantId}/graph?xray=maybe`), 422, "'xray'");
    expectRefusal(await send("GET", `/assistants/${assistantId}/graph?xray=-1`), 422, "'xray'");
  });

  it("answers 422 naming include when it asks for something other than ttl", async () => {
    expectRefusal(await send("GET", `/threads/${threadId}?include=everything`), 422, "'include");
  });

  it("ignores a query parameter the route does not take, as the official server does", async () => {
    const response = await send("GET", `/threads/${threadId}?colour=blue`);
    expect(response.status, response.text).toBe(200);
    expect((response.json as { thread_id: string }).thread_id).toBe(threadId);
  });
});

describe("path ids", () => {
  const ASSISTANT_ID_ROUTES: Array<[string, string, unknown?]> = [
    ["GET", ""],
    ["PATCH", "", { name: "x" }],
    ["DELETE", ""],
    ["POST", "/versions", {}],
    ["POST", "/latest", { version: 1 }],
    ["GET", "/graph"],
    ["GET", "/schemas"],
    ["GET", "/subgraphs"],
    ["GET", "/subgraphs/child"],
  ];
  const THREAD_ID_ROUTES: Array<[string, string, unknown?]> = [
    ["GET", ""],
    ["PATCH", "", { metadata: { n: 2 } }],
    ["DELETE", ""],
    ["POST", "/copy"],
  ];

  it.each(ASSISTANT_ID_ROUTES)("%s /assistants/{id}%s answers 422 to an id that is neither a UUID nor a graph id", async (method, suffix, body) => {
    expectRefusal(await send(method, `/assistants/not-a-uuid${suffix}`, body), 422, "not-a-uuid");
  });

  it.each(ASSISTANT_ID_ROUTES)("%s /assistants/{id}%s answers 404 to an unknown UUID", async (method, suffix, body) => {
    const missing = randomUUID();
    expectRefusal(await send(method, `/assistants/${missing}${suffix}`, body), 404, missing);
  });

  it.each(THREAD_ID_ROUTES)("%s /threads/{id}%s answers 422 naming thread_id when it is not a UUID", async (method, suffix, body) => {
    expectRefusal(await send(method, `/threads/not-a-uuid${suffix}`, body), 422, "'thread_id'");
  });

  it.each(THREAD_ID_ROUTES.filter(([, suffix]) => suffix === ""))("%s /threads/{id} answers 404 to an unknown UUID", async (method, suffix, body) => {
    const missing = randomUUID();
    expectRefusal(await send(method, `/threads/${missing}${suffix}`, body), 404, missing);
  });

  it("POST /threads/{id}/copy answers 409 to an unknown UUID, as the platform does", async () => {
    const missing = randomUUID();
    expectRefusal(await send("POST", `/threads/${missing}/copy`), 409, missing);
  });

  it("answers 404 with a detail for a path no route serves", async () => {
    expectRefusal(await send("GET", "/no/such/route"), 404);
    expectRefusal(await send("PUT", "/assistants"), 404);
  });
});

describe("refused requests write nothing", () => {
  const counts = async () => ({
    assistants: (await send("POST", "/assistants/count", {})).json,
    threads: (await send("POST", "/threads/count", {})).json,
  });

  it("leaves the assistant and thread counts unchanged after every refused create", async () => {
    const before = await counts();
    const padding = "x".repeat(BODY_LIMIT_BYTES * 2);
    const refused = [
      await send("POST", "/assistants", '{"graph_id": "echo"'),
      await send("POST", "/assistants", { graph_id: "echo", metadata: 5 }),
      await send("POST", "/assistants", { graph_id: "echo", assistant_id: "nope" }),
      await send("POST", "/assistants", { graph_id: "no-such-graph" }),
      await send("POST", "/assistants", { graph_id: "echo", description: padding }),
      await send("POST", "/threads", '{"metadata": {}'),
      await send("POST", "/threads", { metadata: 5 }),
      await send("POST", "/threads", { ttl: -1 }),
      await send("POST", "/threads", { metadata: { padding } }),
      await send("POST", "/threads", { supersteps: [{ updates: [{ values: { reply: "hi" }, as_node: "echo" }] }] }),
      await send("POST", `/threads/${randomUUID()}/copy`),
    ];
    for (const response of refused) expect(response.status, response.text).toBeGreaterThanOrEqual(400);
    for (const response of refused) expect(response.status, response.text).toBeLessThan(500);
    expect(await counts()).toEqual(before);
  });

  it("leaves an assistant at its version after refused updates", async () => {
    const before = (await send("GET", `/assistants/${assistantId}`)).json;
    const versionsBefore = (await send("POST", `/assistants/${assistantId}/versions`, {})).json as unknown[];
    expectRefusal(await send("PATCH", `/assistants/${assistantId}`, { metadata: 5 }), 422);
    expectRefusal(await send("PATCH", `/assistants/${assistantId}`, { graph_id: "no-such-graph" }), 404);
    expectRefusal(await send("PATCH", `/assistants/${assistantId}`, { name: "x", colour: "blue", description: 5 }), 422);
    expectRefusal(await send("POST", `/assistants/${assistantId}/latest`, { version: 9 }), 404);
    expect((await send("GET", `/assistants/${assistantId}`)).json).toEqual(before);
    expect((await send("POST", `/assistants/${assistantId}/versions`, {})).json).toHaveLength(versionsBefore.length);
  });

  it("leaves a thread's metadata as it was after refused updates", async () => {
    const before = (await send("GET", `/threads/${threadId}`)).json;
    expectRefusal(await send("PATCH", `/threads/${threadId}`, { metadata: { n: 2 }, colour: "blue", ttl: "long" }), 422);
    expectRefusal(await send("PATCH", `/threads/${threadId}`, { metadata: { n: 2 }, ttl: -1 }), 422);
    expect((await send("GET", `/threads/${threadId}`)).json).toEqual(before);
  });
});
