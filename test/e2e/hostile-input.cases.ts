// The exact inputs of issue #23 ("Hostile input never reaches a 500") and those the fuzzer found,
// over raw HTTP on one backend: each is a 4xx whose detail names the limit or the key, and the
// limits themselves (domain/limits.ts) still let through what is just inside them.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { MAX_FILTER_ENTRIES, MAX_JSON_DEPTH, MAX_NAMESPACE_LABELS } from "../../src/domain/limits.js";
import type { OpenStore } from "./backends.js";
import { GRAPHS_CONFIG } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { detailOf, request, type RawResponse } from "./http.js";

/** JSON text of `{"a": {"a": ... 1}}`, `levels` objects deep, built without recursion. */
const nestedText = (levels: number): string => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

function expectRefused(response: RawResponse, status: number, mentions: string): void {
  expect(response.status, response.text).toBe(status);
  expect(detailOf(response)).toContain(mentions);
}

export function describeHostileInputE2E(backend: string, open: OpenStore): void {
  describe(`hostile input on ${backend}`, () => {
    const gantry = useGantry(open, GRAPHS_CONFIG);

    const send = (method: string, path: string, body?: unknown) => request(gantry.server.url, method, path, body === undefined ? {} : { body });

    describe("deep nesting", () => {
      const DEEP_FIELDS: Array<[method: string, path: string, wrap: (deep: string) => string]> = [
        ["POST", "/threads", (d) => `{"metadata":${d}}`],
        ["POST", "/threads/search", (d) => `{"metadata":${d}}`],
        ["POST", "/runs/wait", (d) => `{"assistant_id":"echo","input":${d}}`],
        ["POST", "/runs/crons", (d) => `{"assistant_id":"echo","schedule":"0 0 1 1 *","config":{"configurable":${d}}}`],
        ["POST", "/assistants", (d) => `{"graph_id":"echo","config":{"configurable":${d}}}`],
        ["PUT", "/store/items", (d) => `{"namespace":["deep"],"key":"k","value":${d}}`],
        ["POST", "/store/items/search", (d) => `{"filter":${d}}`],
      ];
      for (const levels of [1_000, 100_000]) {
        for (const [method, path, wrap] of DEEP_FIELDS) {
          it(`answers 422 to ${method} ${path} nested ${levels} levels`, async () => {
            expectRefused(await send(method, path, wrap(nestedText(levels))), 422, `deeper than ${MAX_JSON_DEPTH} levels`);
          });
        }
      }

      it(`keeps and returns metadata nested to the limit of ${MAX_JSON_DEPTH} levels`, async () => {
        const created = await send("POST", "/threads", `{"metadata":${nestedText(MAX_JSON_DEPTH - 1)}}`);
        expect(created.status, created.text).toBe(200);
        const threadId = (created.json as { thread_id: string }).thread_id;
        const read = await send("GET", `/threads/${threadId}`);
        expect(read.text).toContain(nestedText(MAX_JSON_DEPTH - 1));
      });
    });

    describe("keys and strings no storage can hold", () => {
      const NUL_KEY_FILTERS: Array<[path: string, body: Record<string, unknown>]> = [
        ["/threads/search", { metadata: { "owner\u0000": "x" } }],
        ["/threads/search", { values: { "owner\u0000": "x" } }],
        ["/threads/count", { metadata: { "owner\u0000": "x" } }],
        ["/assistants/search", { metadata: { "owner\u0000": "x" } }],
        ["/runs/crons/search", { metadata: { "owner\u0000": "x" } }],
        ["/store/items/search", { filter: { "owner\u0000": "x" } }],
      ];
      for (const [path, body] of NUL_KEY_FILTERS) {
        it(`answers 422 naming the key to POST ${path} with ${Object.keys(body)[0]} key "owner\\u0000"`, async () => {
          expectRefused(await send("POST", path, body), 422, '"owner\\u0000"');
        });
      }

      it("answers 422 to U+0000 and to an unpaired surrogate in a stored string", async () => {
        expectRefused(await send("POST", "/threads", '{"metadata":{"owner":"x\\u0000y"}}'), 422, "Field 'metadata.owner' contains U+0000");
        expectRefused(await send("POST", "/threads", '{"metadata":{"owner":"x\\ud800"}}'), 422, "Field 'metadata.owner' contains an unpaired UTF-16 surrogate");
      });

      it("answers 422 to U+0000 in a query string or a path parameter", async () => {
        expectRefused(await send("GET", "/store/items?namespace=a%00&key=k"), 422, "Query parameter 'namespace' contains U+0000");
        expectRefused(await send("GET", "/assistants/echo%00"), 422, "Path parameter 'assistant_id' contains U+0000");
      });

      it("still finds metadata keys with dots, quotes, backslashes and emoji", async () => {
        const metadata = { 'a.b"c\\d': "x", "\ud83d\ude00": "y" };
        expect((await send("POST", "/threads", { metadata })).status).toBe(200);
        const found = await send("POST", "/threads/search", { metadata });
        expect(found.status, found.text).toBe(200);
        expect(found.json).toHaveLength(1);
      });
    });

    describe("numbers out of range", () => {
      it("answers 422 to a huge ttl on POST /threads and on PUT /store/items", async () => {
        expectRefused(await send("POST", "/threads", { ttl: 1e308 }), 422, "Field 'ttl' is invalid");
        expectRefused(await send("POST", "/threads", { ttl: { strategy: "delete", ttl: 1e300 } }), 422, "at most 5256000");
        expectRefused(await send("PUT", "/store/items", { namespace: ["n"], key: "k", value: {}, ttl: 1e308 }), 422, "at most 5256000");
      });

      it("answers 422 to a huge after_seconds on POST /runs", async () => {
        expectRefused(await send("POST", "/runs", { assistant_id: "echo", after_seconds: 1e308 }), 422, "Field 'after_seconds' is invalid");
      });

      it("answers 422 to a max_depth past 32 bits on POST /store/namespaces", async () => {
        expectRefused(await send("POST", "/store/namespaces", { max_depth: 2 ** 31 }), 422, "Field 'max_depth' is invalid");
      });

      it("answers 422 to an offset past the limit", async () => {
        expectRefused(await send("POST", "/threads/search", { offset: 1e15 }), 422, "Field 'offset' is invalid");
      });
    });

    describe("sizes", () => {
      const labels = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`);

      it("answers 422 to a suffix or prefix of hundreds of labels on POST /store/namespaces", async () => {
        expectRefused(await send("POST", "/store/namespaces", { suffix: labels(300) }), 422, `at most ${MAX_NAMESPACE_LABELS}`);
        expectRefused(await send("POST", "/store/namespaces", { prefix: labels(300) }), 422, `at most ${MAX_NAMESPACE_LABELS}`);
      });

      it(`lists namespaces by a prefix of ${MAX_NAMESPACE_LABELS} labels`, async () => {
        expect((await send("PUT", "/store/items", { namespace: labels(MAX_NAMESPACE_LABELS), key: "k", value: { v: 1 } })).status).toBe(204);
        const listed = await send("POST", "/store/namespaces", { prefix: labels(MAX_NAMESPACE_LABELS), suffix: labels(MAX_NAMESPACE_LABELS) });
        expect(listed.status, listed.text).toBe(200);
        expect(listed.json).toEqual({ namespaces: [labels(MAX_NAMESPACE_LABELS)] });
      });

      it("answers 422 to a store namespace and key past 1024 bytes together", async () => {
        expectRefused(await send("PUT", "/store/items", { namespace: ["n"], key: "é".repeat(600), value: {} }), 422, "at most 1024");
      });

      it(`answers 422 to a metadata filter past ${MAX_FILTER_ENTRIES} entries, and searches with one at the limit`, async () => {
        const filter = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
        expectRefused(await send("POST", "/threads/search", { metadata: filter(5_000) }), 422, `at most ${MAX_FILTER_ENTRIES}`);
        const atLimit = await send("POST", "/threads/search", { metadata: filter(MAX_FILTER_ENTRIES) });
        expect(atLimit.status, atLimit.text).toBe(200);
      });
    });

    it("answers 408 with a detail to a body that stops arriving, and closes the connection", async () => {
      const { port, hostname } = new URL(gantry.server.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(`POST /threads HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
        });
        let received = "";
        socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
        socket.on("end", () => resolve(received));
        socket.on("error", reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('"detail":"The request body stalled');
    }, 40_000);
  });
}
