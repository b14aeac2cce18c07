// Requests for the control plane's /v2 routes, generated with fast-check from the routes' schemas
// (schemas.ts) and mutated: wrong types, boundary numbers, deep nesting, odd unicode, huge strings,
// broken JSON, unknown keys. Each request prints as a curl command, so a shrunk failure is a
// reproducer to paste.
import fc from "fast-check";

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded. */
  path: string;
  /** Raw body text, when there is one. */
  body?: string;
  headers: Record<string, string>;
}

/** Ids the generator may put in paths: ones the run created, plus unknown and malformed ones. */
export interface KnownIds {
  deployments: string[];
  revisions: string[];
}

/** Stands for `[[[...]]]` nested `depth` deep inside a body; expanded when the body is written. */
class Deep {
  constructor(readonly depth: number) {}
  toJSON() {
    return `__deep_${this.depth}__`;
  }
}

const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "\udc00\ud800",
  "\u202eevil",
  "𝕏🙂",
  "e\u0301",
  "\u2028\u2029",
  "\ufeff",
  "\n",
  "\t",
  "\u001b[31m",
  "../..",
  "/etc/passwd",
  "--upload-pack=touch /tmp/gantry-fuzz",
  "-oProxyCommand=touch /tmp/gantry-fuzz",
  "ext::sh -c touch% /tmp/gantry-fuzz",
  "fd::17",
  "file::/tmp",
  "%00",
  "'; DROP TABLE deployments; --",
  "%' OR 1=1 --",
  "_",
  "%",
  "$(touch /tmp/gantry-fuzz)",
  "\\",
  "null",
  "true",
  "0",
  "-1",
  "9".repeat(40),
  "NaN",
  "Infinity",
  "1e309",
  "0x10",
  "2020-02-30T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999999999-23:59",
];

const BOUNDARY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  63,
  64,
  99,
  100,
  101,
  999,
  1000,
  1001,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 63,
  2 ** 64,
  1e308,
  -1e308,
  5e-324,
];

const oddString = fc.oneof(fc.constantFrom(...ODD_STRINGS), fc.string({ unit: "binary", maxLength: 24 }), fc.string({ maxLength: 24 }));
// Past 1 MiB a body is refused before it is read (api.test.ts covers that); these reach the schemas.
const hugeString = fc
  .tuple(fc.constantFrom(64, 256, 1025, 2049, 8193, 65_537, 300_000), fc.constantFrom("a", "é", "🙂", "\u0000", "\ud800", "-"))
  .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)));
const boundaryNumber = fc.oneof(fc.constantFrom(...BOUNDARY_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
const wrongType = fc.oneof(
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  boundaryNumber,
  fc.array(oddString, { maxLength: 3 }),
  fc.dictionary(oddString, oddString, { maxKeys: 3 }),
);
const deep = fc.constantFrom(9, 33, 100, 1_000, 20_000, 200_000).map((n) => new Deep(n));

/** Any hostile value, for any field. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: oddString },
  { weight: 2, arbitrary: wrongType },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deep },
);

/** Mostly what the schema wants; sometimes a plausible mistake, sometimes anything. */
const field = <T>(valid: fc.Arbitrary<T>, ...wrong: unknown[]) =>
  fc.oneof(
    { weight: 24, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: wrong.length ? 1 : 0, arbitrary: wrong.length ? fc.constantFrom(...wrong) : fc.constant(null) },
    { weight: 1, arbitrary: hostile },
  );

const nameArb = field(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,40}$/), "x".repeat(64), "under_score", "1abc", "");
const repoUrlArb = field(
  fc.constantFrom("file:///nonexistent/fuzz.git", "/nonexistent/fuzz.git", "http://127.0.0.1:1/fuzz.git"),
  "ssh://-oProxyCommand=touch/x",
  "git@-oProxyCommand=x:repo",
  "--upload-pack=touch /tmp/gantry-fuzz",
  "ext::sh -c touch% /tmp/gantry-fuzz",
  "fd::17",
  "ftp://127.0.0.1/x.git",
);
const refArb = field(
  fc.oneof(fc.constantFrom("main", "refs/heads/main", "refs/tags/v1", "v1.0", "feature/x"), fc.stringMatching(/^[0-9a-f]{40}$/)),
  "-x",
  "a..b",
  "@{-1}",
  "main.lock",
  "a b",
);
const pathArb = field(
  fc.constantFrom("langgraph.json", "agents/langgraph.json", "a b/langgraph.json"),
  "../langgraph.json",
  "/etc/langgraph.json",
  "a\\..\\b.json",
  "",
);
const jsonValue = fc.jsonValue({ maxDepth: 3 });
const secretsArb = field(
  fc.uniqueArray(
    fc.record({
      name: fc.oneof(
        fc.constantFrom("API_KEY", "OPENAI_API_KEY", "GIT_ALLOW_PROTOCOL", "GIT_SSH_COMMAND", "GIT_CONFIG_GLOBAL"),
        fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/),
      ),
      value: fc.string({ maxLength: 30 }),
    }),
    { maxLength: 4, selector: (s) => s.name },
  ),
  [{ name: "PATH", value: "/tmp" }],
  [{ name: "POSTGRES_URI", value: "x" }],
  [{ name: "1BAD", value: "x" }],
  [
    { name: "A", value: "1" },
    { name: "A", value: "2" },
  ],
  [{ name: "A".repeat(257), value: "x" }],
  [{ name: "A" }],
);

const sourceConfig = fc.record(
  {
    integration_id: field(fc.oneof(fc.uuid(), fc.constant(null)), "not-a-uuid"),
    repo_url: repoUrlArb,
    deployment_type: field(fc.constantFrom("dev_free", "dev", "prod"), "serverless"),
    build_on_push: field(fc.boolean(), "true"),
    custom_url: field(
      fc.oneof(
        fc.constant(null),
        fc.nat().map((n) => `https://fuzz-${n}.example.test`),
      ),
      "",
      "http://127.0.0.1",
      "https://a.example.test/path",
      "ftp://x",
    ),
    resource_spec: field(fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 4 }), []),
    listener_id: field(fc.constant(null), "0190a1c1-0000-7000-8000-000000000000"),
    listener_config: field(fc.constant(null), { k8s_namespace: "default" }),
    install_command: field(fc.constantFrom("true", "npm ci", null)),
    build_command: field(fc.constantFrom("true", null)),
    unknown_extra: hostile,
  },
  { requiredKeys: ["repo_url"] },
);

const revisionConfig = fc.record(
  {
    repo_ref: refArb,
    langgraph_config_path: pathArb,
    image_uri: field(fc.constant(null), "docker.io/x:1"),
    source_tarball_path: field(fc.constant(null), "/tmp/x.tgz"),
  },
  { requiredKeys: ["repo_ref", "langgraph_config_path"] },
);

const createBody = fc.record(
  {
    name: nameArb,
    source: field(fc.constant("github"), "external_docker", "internal_source"),
    source_config: field(sourceConfig),
    source_revision_config: field(revisionConfig),
    secrets: secretsArb,
    secret_references: field(fc.constantFrom(null, []), [{ name: "x" }]),
    extra: hostile,
  },
  { requiredKeys: ["name", "source", "source_config", "source_revision_config", "secrets"] },
);

const patchBody = fc.record(
  {
    name: nameArb,
    source: field(fc.constant("github"), "internal_source"),
    revision_source: field(fc.constantFrom("github", null), "internal_docker"),
    source_config: field(sourceConfig.map(({ repo_url: _fixed, ...rest }) => rest)),
    source_revision_config: field(revisionConfig),
    secrets: secretsArb,
    secret_references: field(fc.constantFrom(null, []), [{ name: "x" }]),
    tracked_packages: field(fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 })),
  },
  { requiredKeys: [] },
);

/**
 * What storage, git and shells choke on, put inside an otherwise valid string: a body valid but
 * for one such character is what reaches the database.
 */
const TAINTS = ["\u0000", "\ud800", "\udfff", "\u202e", "\n", "\u001b", "%", "_", "'", "\\", "🙂", "\ufeff", " -", "..", "@{", "\u0085"];

/** The value with `taint` inserted into its n-th string (keys included), at a position n picks. */
function taintNthString(value: unknown, n: number, taint: string): unknown {
  let seen = 0;
  let count = 0;
  const countStrings = (v: unknown): void => {
    if (typeof v === "string") count++;
    else if (Array.isArray(v)) v.forEach(countStrings);
    else if (v && typeof v === "object" && !(v instanceof Deep)) {
      for (const item of Object.values(v)) {
        count++;
        countStrings(item);
      }
    }
  };
  countStrings(value);
  if (count === 0) return value;
  const target = n % count;
  const insert = (text: string) => {
    const at = n % (text.length + 1);
    return text.slice(0, at) + taint + text.slice(at);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return seen++ === target ? insert(v) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object" && !(v instanceof Deep)) {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [seen++ === target ? insert(k) : k, walk(item)]));
    }
    return v;
  };
  return walk(value);
}

// NUL and lone surrogates most often: they pass a lax schema and break only in PostgreSQL.
const taint = fc.oneof({ weight: 3, arbitrary: fc.constantFrom("\u0000", "\ud800", "\udfff") }, { weight: 2, arbitrary: fc.constantFrom(...TAINTS) });
const tainted = (value: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 1, arbitrary: value }, { weight: 2, arbitrary: fc.tuple(value, fc.nat(), taint).map(([v, n, t]) => taintNthString(v, n, t)) });

/** A body as text: JSON of the value (deep markers expanded), or something that is not quite JSON. */
const bodyText = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 12, arbitrary: tainted(value).map(writeJson) },
    { weight: 1, arbitrary: fc.constantFrom("", "{", '{"name":', "null", "[]", "1", '"text"', "\u0000", '{"a":1}garbage', "\ufeff{}") },
    { weight: 1, arbitrary: hostile.map(writeJson) },
  );

function writeJson(value: unknown): string {
  return JSON.stringify(value ?? null).replace(/"__deep_(\d+)__"/g, (_all, n: string) => "[".repeat(Number(n)) + "]".repeat(Number(n)));
}

/** A query value as a client might write it: encoded, raw, or broken percent-encoding. */
function encodeLoose(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[\ud800-\udfff]/g, "%ED%A0%80").replace(/[^A-Za-z0-9%._~-]/g, (ch) => encodeURIComponent(ch));
  }
}

const queryValue = fc.oneof(
  // Node refuses a request line past 16 KiB (431) before the app sees it: most values stay under.
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        oddString,
        boundaryNumber.map(String),
        hugeString.map((s) => s.slice(0, 1_500)),
      )
      .map(encodeLoose),
  },
  { weight: 1, arbitrary: fc.constantFrom("%", "%zz", "%E0%A4%A", "%ED%A0%80", "%00", "%FF", "a%2Cb", "[", '["x"]', "true", "TRUE", "1", "0") },
);

function query(known: Record<string, fc.Arbitrary<string>>) {
  const pairs = fc.array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .constantFrom(...Object.keys(known))
          .chain((key) =>
            fc.tuple(
              fc.constant(key),
              fc.oneof(
                { weight: 2, arbitrary: known[key]! },
                { weight: 1, arbitrary: queryValue },
                { weight: 1, arbitrary: tainted(known[key]!).map((v) => encodeLoose(String(v))) },
              ),
            ),
          ),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom("unknown", "", "limit[]", "%", "a=b"), queryValue) },
    ),
    { maxLength: 5 },
  );
  return pairs.map((list) => (list.length ? "?" + list.map(([k, v]) => `${k}=${v}`).join("&") : ""));
}

const int = (...values: number[]) => fc.oneof(fc.constantFrom(...values.map(String)), boundaryNumber.map(String));
const enumOf = (...values: string[]) => fc.constantFrom(...values);

const deploymentListQuery = query({
  limit: int(1, 20, 100),
  offset: int(0, 1),
  name_contains: fc.constantFrom("fuzz", "%", "_", "a%25b"),
  status: enumOf("READY", "AWAITING_DELETE", "nope"),
  remote_reconciled: enumOf("true", "false", "yes"),
  tag_value_ids: enumOf("x"),
  image_version: enumOf("1"),
  deployment_type: enumOf("dev", "prod", "x"),
  deployment_ids: fc.uuid(),
});
const revisionListQuery = query({
  limit: int(1, 100),
  offset: int(0),
  status: enumOf("DEPLOYED", "BUILD_FAILED", "nope"),
  remote_reconciled: enumOf("true", "0"),
});
const deleteQuery = query({ force: enumOf("true", "false", "2"), delete_tracing_project: enumOf("true", "false") });
const logsQuery = query({
  type: enumOf("build", "deploy", "x"),
  start_time: enumOf("2020-01-01T00:00:00Z", "2020-01-01", "0000-01-01T00:00:00Z"),
  end_time: enumOf("2999-01-01T00:00:00+14:00", "9999-12-31T23:59:59.999999999-23:59"),
  order: enumOf("asc", "desc", "up"),
  limit: int(1, 50, 1000),
  offset: int(0, 1, Number.MAX_SAFE_INTEGER, 2 ** 63),
  query: fc.constantFrom("Cloning", "%", "_"),
  level: enumOf("INFO", "ERROR", "info"),
  run_id: fc.uuid(),
});

/** The /v1 log queries of the official CLI: the query travels as a JSON body. */
const legacyLogsBody = fc.record(
  {
    limit: fc.oneof(fc.constantFrom(1, 30, 100, 1000), boundaryNumber),
    order: fc.constantFrom("asc", "desc", "up", null),
    offset: fc.constantFrom("0", "1", String(Number.MAX_SAFE_INTEGER), String(2 ** 63), "x", null),
    level: fc.constantFrom("INFO", "ERROR", "warn", null),
    query: fc.constantFrom("Unpacked", "%", "_", null),
    start_time: fc.constantFrom("2020-01-01T00:00:00Z", "2020-01-01", null),
    end_time: fc.constantFrom("2999-01-01T00:00:00+14:00", null),
    unknown_extra: hostile,
  },
  { requiredKeys: [] },
);

const junkId = fc.oneof(
  fc.constantFrom(
    "abc",
    "00000000-0000-0000-0000-000000000000",
    "%00",
    "%ED%A0%80",
    "..",
    "%2e%2e",
    "x".repeat(5_000),
    "0190A1C1-0000-7000-8000-00000000000G",
    " ",
  ),
  fc.string({ maxLength: 40 }).map(encodeLoose),
);

function idArb(pool: () => string[]) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.nat().map((n) => pool()[n % Math.max(1, pool().length)] ?? "00000000-0000-4000-8000-000000000000") },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: junkId },
  );
}

const headersArb = fc.record(
  {
    "X-Tenant-Id": fc.oneof(fc.constantFrom("", "not-a-uuid", "00000000-0000-0000-0000-000000000000"), fc.uuid()),
    "Content-Type": fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"),
  },
  { requiredKeys: [] },
);

/** One request to one of the /v2 routes (and the router's), chosen from the known ids or not. */
export function requestArb(ids: KnownIds): fc.Arbitrary<FuzzRequest> {
  const dep = idArb(() => ids.deployments);
  const rev = idArb(() => ids.revisions);
  const route: fc.Arbitrary<Omit<FuzzRequest, "headers">> = fc.oneof(
    deploymentListQuery.map((q) => ({ method: "GET", path: `/v2/deployments${q}` })),
    { weight: 4, arbitrary: bodyText(createBody).map((body) => ({ method: "POST", path: "/v2/deployments", body })) },
    dep.map((id) => ({ method: "GET", path: `/v2/deployments/${id}` })),
    { weight: 3, arbitrary: fc.tuple(dep, bodyText(patchBody)).map(([id, body]) => ({ method: "PATCH", path: `/v2/deployments/${id}`, body })) },
    fc.tuple(dep, deleteQuery).map(([id, q]) => ({ method: "DELETE", path: `/v2/deployments/${id}${q}` })),
    dep.map((id) => ({ method: "POST", path: `/v2/deployments/${id}/push-webhook` })),
    fc.tuple(dep, revisionListQuery).map(([id, q]) => ({ method: "GET", path: `/v2/deployments/${id}/revisions${q}` })),
    { weight: 2, arbitrary: fc.tuple(dep, bodyText(patchBody)).map(([id, body]) => ({ method: "POST", path: `/v2/deployments/${id}/revisions`, body })) },
    fc.tuple(dep, rev).map(([id, r]) => ({ method: "GET", path: `/v2/deployments/${id}/revisions/${r}` })),
    fc.tuple(dep, rev).map(([id, r]) => ({ method: "POST", path: `/v2/deployments/${id}/revisions/${r}/redeploy` })),
    { weight: 2, arbitrary: fc.tuple(dep, rev, logsQuery).map(([id, r, q]) => ({ method: "GET", path: `/v2/deployments/${id}/revisions/${r}/logs${q}` })) },
    fc.tuple(dep, fc.constantFrom("/ok", "/", "/threads", "/%", "/..%2f..%2fv2")).map(([id, p]) => ({ method: "GET", path: `/deployments/${id}${p}` })),
    dep.map((id) => ({ method: "POST", path: `/v2/deployments/${id}/upload-url` })),
    dep.map((id) => ({ method: "POST", path: `/v2/deployments/${id}/push-token` })),
    fc
      .tuple(dep, rev, fc.constantFrom("build_logs", "deploy_logs"), bodyText(legacyLogsBody))
      .map(([id, r, kind, body]) => ({ method: "POST", path: `/v1/projects/${id}/revisions/${r}/${kind}`, body })),
    fc.tuple(dep, bodyText(legacyLogsBody)).map(([id, body]) => ({ method: "POST", path: `/v1/projects/${id}/deploy_logs`, body })),
    fc
      .tuple(
        dep,
        idArb(() => []),
        queryValue,
        queryValue,
        fc.constantFrom("", "x", "\u0000"),
      )
      .map(([id, upload, expires, signature, body]) => ({ method: "PUT", path: `/uploads/${id}/${upload}?expires=${expires}&signature=${signature}`, body })),
  );
  return fc.tuple(route, headersArb).map(([r, headers]) => {
    const request: FuzzRequest = { ...r, headers };
    return Object.assign(request, { [fc.toStringMethod]: () => curlOf(request) });
  });
}

/** The request as a curl command (bodies past 2,000 characters are described, not pasted). */
export function curlOf(request: FuzzRequest): string {
  const headers = Object.entries(request.headers)
    .map(([k, v]) => ` -H ${shellQuote(`${k}: ${v}`)}`)
    .join("");
  const body =
    request.body === undefined
      ? ""
      : request.body.length > 2_000
        ? ` --data-binary ${shellQuote(request.body.slice(0, 200))}'…(${request.body.length} characters)'`
        : ` --data-binary ${shellQuote(request.body)}`;
  const path = request.path.length > 2_000 ? `${request.path.slice(0, 200)}…(${request.path.length} characters)` : request.path;
  return `curl -X ${request.method} "$CP"${shellQuote(path)} -H "X-Api-Key: $KEY"${headers}${body}`;
}

const shellQuote = (text: string) => `'${JSON.stringify(text).slice(1, -1).replace(/'/g, "'\\''")}'`;
