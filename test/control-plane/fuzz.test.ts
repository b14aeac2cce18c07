// Property-based fuzzing of a real `gantry control-plane` (SQLite, then PostgreSQL): requests for
// every /v2 route generated from the schemas and mutated (fuzz-requests.ts). Properties: never a
// 5xx, every refusal has a detail, never a hang, the process still answers, and a deployment made
// before fuzzing is unchanged after it. FUZZ_RUNS sets the number of requests per backend (default
// 500); a failure is shrunk and printed as a curl command. FUZZ_SURVEY=1 lists every failure
// instead of stopping at the first (to survey a build before fixing it).
import fc from "fast-check";
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL, describeWithPostgres, freshSchemaName } from "../support/postgres.js";
import { curlOf, requestArb, type FuzzRequest, type KnownIds } from "./fuzz-requests.js";
import { API_KEY, api, controlPlaneDataDir, createBody, startControlPlane, waitFor, type RunningControlPlane } from "./support.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SURVEY = process.env.FUZZ_SURVEY === "1";
/** Far past any answer seen: an answer this late is a hang. */
const HANG_MS = 10_000;

interface Tally {
  byStatus: Map<number, number>;
  slowestMs: number;
  slowest: string;
  failures: string[];
}

async function send(baseUrl: string, request: FuzzRequest): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers: { "X-Api-Key": API_KEY, ...request.headers },
    ...(request.body !== undefined ? { body: request.body } : {}),
    signal: AbortSignal.timeout(HANG_MS),
  });
  const body = await response.text();
  return { status: response.status, body, ms: performance.now() - started };
}

function fuzzBackend(label: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => {}) {
  describe(`control plane fuzzing (${label})`, { timeout: 180_000 }, () => {
    let cp: RunningControlPlane;
    const ids: KnownIds = { deployments: [], revisions: [] };
    const tally: Tally = { byStatus: new Map(), slowestMs: 0, slowest: "", failures: [] };
    let baseline: { id: string; deployment: unknown; revisions: unknown };

    const snapshot = async (id: string) => {
      const client = api(cp.url);
      return {
        deployment: (await client.call("GET", `/v2/deployments/${id}`)).body,
        revisions: (await client.call("GET", `/v2/deployments/${id}/revisions`)).body,
      };
    };

    beforeAll(async () => {
      cp = await startControlPlane(controlPlaneDataDir(), env());
      const client = api(cp.url);
      const created = await client.call(
        "POST",
        "/v2/deployments",
        createBody("fuzz-baseline", "file:///nonexistent/baseline.git", {
          secrets: [{ name: "BASELINE_SECRET", value: "kept" }],
          source_config: { repo_url: "file:///nonexistent/baseline.git", resource_spec: { replicas: 1 } },
        }),
      );
      expect(created.status).toBe(201);
      const { id, latest_revision_id: revision } = created.body;
      await waitFor("the baseline build to settle", async () =>
        (await client.call("GET", `/v2/deployments/${id}/revisions/${revision}`)).body.status === "BUILD_FAILED" ? true : undefined,
      );
      baseline = { id, ...(await snapshot(id)) };
      // Fuzzed requests reach real deployments and revisions, but never the baseline.
      for (const name of ["fuzz-target-a", "fuzz-target-b"]) {
        const target = await client.call("POST", "/v2/deployments", createBody(name, "file:///nonexistent/target.git"));
        ids.deployments.push(target.body.id);
        ids.revisions.push(target.body.latest_revision_id);
      }
    });

    afterAll(async () => {
      const statuses = [...tally.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
      if (tally.failures.length) console.log(`[fuzz ${label}] failures:\n${tally.failures.join("\n")}`);
      console.log(
        `[fuzz ${label}] ${[...tally.byStatus.values()].reduce((a, b) => a + b, 0)} requests; by status ${statuses.join(", ")}; slowest ${Math.round(tally.slowestMs)} ms: ${tally.slowest}`,
      );
      await cp?.stop();
      if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
      await cleanup();
    });

    /** One request against the properties; throws what it broke. */
    async function check(request: FuzzRequest): Promise<void> {
      const answer = await send(cp.url, request);
      tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
      if (answer.ms > tally.slowestMs) {
        tally.slowestMs = answer.ms;
        tally.slowest = curlOf(request).slice(0, 300);
      }
      // The router's 502/503 are deliberate (no live revision yet, a deployment not answering): the SDKs retry them.
      const routed = request.path.startsWith("/deployments/");
      if (answer.status >= 500 && !(routed && (answer.status === 502 || answer.status === 503)))
        throw new Error(`HTTP ${answer.status}: ${answer.body.slice(0, 500)}`);
      // 431 comes from Node's HTTP parser (a request line past 16 KiB), before any of Gantry's code.
      if (answer.status >= 400 && answer.status !== 431) {
        const parsed = JSON.parse(answer.body) as { detail?: unknown };
        if (parsed.detail === undefined) throw new Error(`HTTP ${answer.status} without a detail: ${answer.body.slice(0, 500)}`);
      }
      // Created deployments and revisions become targets of later requests.
      if (answer.status === 201 && request.method === "POST") {
        const made = JSON.parse(answer.body) as { id: string; latest_revision_id?: string };
        if (made.latest_revision_id) {
          ids.deployments.push(made.id);
          ids.revisions.push(made.latest_revision_id);
        } else {
          ids.revisions.push(made.id);
        }
      }
    }

    it("never answers 5xx, always with a detail, and never hangs", async () => {
      await fc.assert(
        fc.asyncProperty(requestArb(ids), async (request) => {
          try {
            await check(request);
          } catch (err) {
            if (!SURVEY) throw err;
            tally.failures.push(`${(err as Error).message.slice(0, 300)}\n    ${curlOf(request).slice(0, 600)}`);
          }
        }),
        { numRuns: RUNS },
      );
    });

    it("still answers, and the deployment made before fuzzing is unchanged", async () => {
      expect((await fetch(`${cp.url}/ok`)).status).toBe(200);
      expect((await api(cp.url).call("GET", "/v2/deployments?limit=1")).status).toBe(200);
      expect(await snapshot(baseline.id)).toEqual({ deployment: baseline.deployment, revisions: baseline.revisions });
    });
  });
}

fuzzBackend("SQLite", () => ({}));

const schema = freshSchemaName();
await describeWithPostgres("control plane fuzzing on PostgreSQL", () => {
  fuzzBackend(
    "PostgreSQL",
    () => ({ DATABASE_URL: TEST_DATABASE_URL, GANTRY_CONTROL_PLANE_SCHEMA: schema }),
    async () => {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  );
});
