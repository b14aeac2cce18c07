// The router between clients and a deployed server, over real HTTP: compressed answers arrive
// readable (curl --compressed, Node's fetch, a raw HTTP client), hop-by-hop headers stop at the
// router both ways, and the forwarding headers are the router's own. The deployment is the fixture
// project with an http.app using hono's compress(). The same deployment shows that git never sees
// the deployment's secrets while its install command does.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { API_KEY, createBody, revisionSettles, useControlPlane } from "./support.js";

const APP = `// The project's own routes beside the Agent Server's.
import { gzipSync } from "node:zlib";
import { Hono } from "hono";
import { compress } from "hono/compress";

export const app = new Hono();

app.use("/reports/*", compress());
app.get("/reports/all", (c) => c.json({ rows: Array.from({ length: 2000 }, (_, i) => "row-" + i) }));

// A server that compresses whatever the client asked for.
app.get("/always-gzip", () =>
  new Response(gzipSync(JSON.stringify({ compressed: "always" })), { headers: { "content-type": "application/json", "content-encoding": "gzip" } }),
);

app.get("/echo-headers", (c) => c.json(Object.fromEntries(c.req.raw.headers)));

app.get("/hop-headers", () =>
  new Response("hop", { headers: { connection: "x-private-hop", "x-private-hop": "1", "proxy-authenticate": "Basic", "x-kept": "yes" } }),
);
`;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** node:http, because fetch() refuses to send Connection, TE and friends. */
function raw(url: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((done, fail) => {
    const req = request(url, { headers: { "X-Api-Key": API_KEY, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("control plane router: encodings and headers", { timeout: 120_000 }, () => {
  const suite = useControlPlane();
  let base: string;
  let traceFile: string;

  beforeAll(async () => {
    suite.repo.commit("v1", {
      "src/app.ts": APP,
      "langgraph.json": JSON.stringify({ graphs: { agent: "./src/agent.ts:graph" }, http: { app: "./src/app.ts:app" } }),
    });
    traceFile = join(suite.cp.dataDir, "git-trace.txt");
    const created = await suite.client.call(
      "POST",
      "/v2/deployments",
      createBody("router-agent", suite.repo.url, {
        source_config: { repo_url: suite.repo.url, install_command: 'echo "install sees GIT_TRACE=$GIT_TRACE"' },
        // Had git run with the secrets, it would write its trace here.
        secrets: [{ name: "GIT_TRACE", value: traceFile }],
      }),
    );
    expect(created.status).toBe(201);
    expect((await revisionSettles(suite.client, created.body.id, created.body.latest_revision_id, 90_000)).status).toBe("DEPLOYED");
    base = `${suite.cp.url}/deployments/${created.body.id}`;
  });

  it("hands compress()'d and always-gzipped answers to curl --compressed readable", () => {
    for (const path of ["/reports/all", "/always-gzip"]) {
      const out = execFileSync("curl", ["-sS", "--fail", "--compressed", "--max-time", "20", "-H", `X-Api-Key: ${API_KEY}`, base + path], { encoding: "utf8" });
      expect(JSON.parse(out)).toEqual(path === "/always-gzip" ? { compressed: "always" } : { rows: expect.arrayContaining(["row-0", "row-1999"]) });
    }
  });

  it("hands them to Node's fetch, which reads the body to its end", async () => {
    for (const [path, expected] of [
      ["/reports/all", { rows: expect.arrayContaining(["row-1999"]) }],
      ["/always-gzip", { compressed: "always" }],
    ] as const) {
      const response = await fetch(base + path, { headers: { "X-Api-Key": API_KEY, "Accept-Encoding": "gzip" }, signal: AbortSignal.timeout(20_000) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(expected);
    }
  });

  it("never labels a plain body gzip, and any length it sends is the body's", async () => {
    const answer = await raw(base + "/always-gzip", { "Accept-Encoding": "gzip" });
    expect(answer.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(answer.body.toString("utf8"))).toEqual({ compressed: "always" });
    if (answer.headers["content-length"] !== undefined) expect(Number(answer.headers["content-length"])).toBe(answer.body.length);
  });

  it("drops hop-by-hop request headers and sets X-Forwarded-* from what it saw, replacing the client's", async () => {
    const answer = await raw(base + "/echo-headers", {
      Connection: "keep-alive, X-Private-Hop",
      "X-Private-Hop": "1",
      TE: "trailers",
      "Proxy-Authorization": "Basic dXNlcjpwdw==",
      "X-Forwarded-For": "203.0.113.7",
      "X-Forwarded-Host": "spoofed.example",
      "X-Forwarded-Proto": "https",
      Forwarded: "for=203.0.113.7",
      "X-Kept-Request": "yes",
    });
    const seen = JSON.parse(answer.body.toString("utf8")) as Record<string, string>;
    for (const name of ["x-private-hop", "te", "proxy-authorization", "forwarded", "x-api-key"]) expect(seen[name], name).toBeUndefined();
    expect(seen["x-kept-request"]).toBe("yes");
    expect(seen["x-forwarded-for"]).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    expect(seen["x-forwarded-proto"]).toBe("http");
    expect(seen["x-forwarded-host"]).toBe(new URL(suite.cp.url).host);
  });

  it("drops hop-by-hop response headers, those its Connection names included", async () => {
    const answer = await raw(base + "/hop-headers", {});
    expect(answer.body.toString("utf8")).toBe("hop");
    expect(answer.headers["x-private-hop"]).toBeUndefined();
    expect(answer.headers["proxy-authenticate"]).toBeUndefined();
    expect(answer.headers["x-kept"]).toBe("yes");
  });

  it("gives secrets to the install command but never to git", async () => {
    const { body } = await suite.client.call("GET", "/v2/deployments?name_contains=router-agent");
    const deployment = body.resources[0];
    const logs = await suite.client.call("GET", `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}/logs?type=build&limit=1000`);
    expect(logs.body.logs.map((l: { message: string }) => l.message)).toContain(`install sees GIT_TRACE=${traceFile}`);
    expect(existsSync(traceFile)).toBe(false);
  });
});
