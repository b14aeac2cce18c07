// Exact inputs that once reached git or the database unchecked, each answered now with a 4xx naming
// the field, the same on SQLite and PostgreSQL (which refuses NUL and lone surrogates in TEXT and
// JSONB, and numbers past BIGINT, where SQLite would have kept them).
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_DATABASE_URL, describeWithPostgres, freshSchemaName } from "../support/postgres.js";
import { api, controlPlaneDataDir, createBody, startControlPlane, type Api, type RunningControlPlane } from "./support.js";

const NO_REPO = "file:///nonexistent/hostile.git";

function hostileInputCases(label: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => {}) {
  describe(`control plane hostile input (${label})`, { timeout: 60_000 }, () => {
    let cp: RunningControlPlane;
    let client: Api;
    let deploymentId: string;
    let revisionId: string;

    beforeAll(async () => {
      cp = await startControlPlane(controlPlaneDataDir(), env());
      client = api(cp.url);
      const created = await client.call("POST", "/v2/deployments", createBody("hostile-target", NO_REPO));
      deploymentId = created.body.id;
      revisionId = created.body.latest_revision_id;
    });

    afterAll(async () => {
      await cp?.stop();
      if (cp) rmSync(cp.dataDir, { recursive: true, force: true });
      await cleanup();
    });

    // biome-ignore lint/suspicious/noExplicitAny: an answer body of any shape, read loosely in assertions
    const refused = (answer: { status: number; body: any }, loc: (string | number)[]) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    };

    it("refuses a repo_url git would read as an option or a remote helper", async () => {
      for (const url of [
        "--upload-pack=touch /tmp/gantry-x",
        "-u",
        "ext::sh -c touch% /tmp/gantry-x",
        "fd::17",
        "ssh://-oProxyCommand=touch/x",
        "git@-oProxyCommand=x:repo",
        "ftp://example.com/x.git",
        "file:///tmp/a b.git",
        "",
      ]) {
        const body = createBody("bad-url", url);
        refused(await client.call("POST", "/v2/deployments", body), ["body", "source_config", "repo_url"]);
      }
      for (const url of ["https://github.com/org/repo.git", "git@github.com:org/repo.git", "/nonexistent/git/repo.git", "ssh://git@host:22/repo.git"]) {
        const answer = await client.call("POST", "/v2/deployments", createBody(`ok-url-${Math.random().toString(36).slice(2, 8)}`, url));
        expect(answer.status, url).toBe(201);
        await client.call("DELETE", `/v2/deployments/${answer.body.id}`);
      }
    });

    it("refuses a repo_ref git would read as an option or cannot name", async () => {
      for (const ref of ["--output=/tmp/x", "a..b", "main.lock", "with space", "@{-1}", "x\u0000y"]) {
        const body = createBody("bad-ref", NO_REPO, { source_revision_config: { repo_ref: ref, langgraph_config_path: "langgraph.json" } });
        refused(await client.call("POST", "/v2/deployments", body), ["body", "source_revision_config", "repo_ref"]);
      }
    });

    it("refuses NUL and lone surrogates in every stored string, resource_spec included", async () => {
      const cases: [Record<string, unknown>, (string | number)[]][] = [
        [{ source_config: { repo_url: "file:///x\u0000.git" } }, ["body", "source_config", "repo_url"]],
        [{ source_config: { repo_url: NO_REPO, install_command: "npm ci\u0000" } }, ["body", "source_config", "install_command"]],
        [{ source_config: { repo_url: NO_REPO, build_command: "\ud800" } }, ["body", "source_config", "build_command"]],
        [{ source_config: { repo_url: NO_REPO, resource_spec: { note: "a\u0000b" } } }, ["body", "source_config", "resource_spec"]],
        [{ source_config: { repo_url: NO_REPO, resource_spec: { "\ud800": 1 } } }, ["body", "source_config", "resource_spec"]],
        [
          { source_revision_config: { repo_ref: "main", langgraph_config_path: "lang\u0000graph.json" } },
          ["body", "source_revision_config", "langgraph_config_path"],
        ],
        [{ secrets: [{ name: "TOKEN", value: "x\u0000" }] }, ["body", "secrets", 0, "value"]],
        [{ secrets: [{ name: "TOKEN", value: "\udfff" }] }, ["body", "secrets", 0, "value"]],
      ];
      for (const [extra, loc] of cases) refused(await client.call("POST", "/v2/deployments", createBody("nul-field", NO_REPO, extra)), loc);
      refused(await client.call("PATCH", `/v2/deployments/${deploymentId}`, { source_config: { install_command: "\u0000" } }), [
        "body",
        "source_config",
        "install_command",
      ]);
    });

    it("bounds string lengths, list sizes and resource_spec nesting", async () => {
      refused(await client.call("POST", "/v2/deployments", createBody("long-url", "file:///" + "a".repeat(3_000))), ["body", "source_config", "repo_url"]);
      refused(
        await client.call(
          "POST",
          "/v2/deployments",
          createBody("many-secrets", NO_REPO, { secrets: Array.from({ length: 201 }, (_, i) => ({ name: `S${i}`, value: "v" })) }),
        ),
        ["body", "secrets"],
      );
      const deep = JSON.parse("[".repeat(100) + "]".repeat(100)) as unknown;
      refused(
        await client.call("POST", "/v2/deployments", createBody("deep-spec", NO_REPO, { source_config: { repo_url: NO_REPO, resource_spec: { deep } } })),
        ["body", "source_config", "resource_spec"],
      );
      // 20,000 deep once overflowed JSON.stringify's stack on the way to storage.
      const deepSpec = JSON.stringify(createBody("deeper-spec", NO_REPO, { source_config: { repo_url: NO_REPO, resource_spec: { deep: "DEEP" } } })).replace(
        '"DEEP"',
        "[".repeat(20_000) + "]".repeat(20_000),
      );
      refused(await client.call("POST", "/v2/deployments", deepSpec), ["body", "source_config", "resource_spec"]);
      const hugelyDeep = `{"name":"x","extra":${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
      expect((await client.call("POST", "/v2/deployments", hugelyDeep)).status).toBe(422);
    });

    it("refuses NUL and lone surrogates in query filters, and log cursors past what the store holds", async () => {
      refused(await client.call("GET", "/v2/deployments?name_contains=%00"), ["query", "name_contains"]);
      refused(await client.call("GET", `/v2/deployments?name_contains=${"a".repeat(1_025)}`), ["query", "name_contains"]);
      const logs = `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs?type=build`;
      refused(await client.call("GET", `${logs}&query=%00`), ["query", "query"]);
      refused(await client.call("GET", `${logs}&offset=99999999999999999999999`), ["query", "offset"]);
      refused(await client.call("GET", `${logs}&offset=9007199254740993`), ["query", "offset"]);
      expect((await client.call("GET", `${logs}&offset=9007199254740991`)).status).toBe(200);
    });
  });
}

hostileInputCases("SQLite", () => ({}));

const schema = freshSchemaName();
await describeWithPostgres("control plane hostile input on PostgreSQL", () => {
  hostileInputCases(
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
