// langgraph.json -> a validated, typed project description (spec §7). Keys that only matter to
// image builds, and keys no CLI knows, are ignored with a warning; keys later issues act on (auth,
// store, checkpointer) are validated now so a broken file fails at start-up, not at first use.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { closest } from "../did-you-mean.js";
import { StartupError } from "../errors.js";
import { parseIgnoringUnknownKeys } from "../unknown-keys.js";

const importString = z
  .string()
  .min(1)
  .refine((s) => !s.startsWith(":"), "must look like './path/to/file.ts:exportName'");

const graphEntry = z.union([importString, z.object({ path: importString, description: z.string().optional() }).passthrough()]);

const headerPatterns = z
  .object({
    includes: z.array(z.string()).optional(),
    excludes: z.array(z.string()).optional(),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
  })
  .strict();

const cors = z
  .object({
    allow_origins: z.array(z.string()).optional(),
    allow_methods: z.array(z.string()).optional(),
    allow_headers: z.array(z.string()).optional(),
    allow_credentials: z.boolean().optional(),
    allow_origin_regex: z.string().optional(),
    expose_headers: z.array(z.string()).optional(),
    max_age: z.number().int().nonnegative().optional(),
  })
  .strict();

const http = z
  .object({
    app: importString.optional(),
    cors: cors.optional(),
    disable_assistants: z.boolean().default(false),
    disable_threads: z.boolean().default(false),
    disable_runs: z.boolean().default(false),
    disable_store: z.boolean().default(false),
    disable_meta: z.boolean().default(false),
    disable_ui: z.boolean().default(false),
    disable_mcp: z.boolean().default(false),
    disable_a2a: z.boolean().default(false),
    disable_webhooks: z.boolean().default(false),
    configurable_headers: headerPatterns.optional(),
    logging_headers: headerPatterns.optional(),
    middleware_order: z.enum(["auth_first", "middleware_first"]).default("middleware_first"),
    enable_custom_route_auth: z.boolean().default(false),
    mount_prefix: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]*[^/]$/, "must start with '/' and not end with '/'")
      .optional(),
  })
  .strict();

const auth = z
  .object({
    path: importString,
    disable_studio_auth: z.boolean().default(false),
    openapi: z.record(z.string(), z.unknown()).optional(),
    cache: z
      .object({
        cache_keys: z.array(z.string()).optional(),
        ttl_seconds: z.number().positive().optional(),
        max_size: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    allow_langsmith_api_keys: z.boolean().optional(),
  })
  .strict();

const store = z
  .object({
    index: z
      .object({
        dims: z.number().int().positive(),
        embed: z.string().min(1),
        fields: z.array(z.string()).default(["$"]),
      })
      .passthrough()
      .optional(),
    ttl: z
      .object({
        refresh_on_read: z.boolean().default(true),
        default_ttl: z.number().positive().optional(),
        sweep_interval_minutes: z.number().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const checkpointer = z
  .object({
    path: importString.optional(),
    backend: z.string().optional(),
    serde: z.record(z.string(), z.unknown()).optional(),
    ttl: z
      .object({
        strategy: z.enum(["delete", "keep_latest"]).default("delete"),
        default_ttl: z.number().positive().optional(),
        sweep_interval_minutes: z.number().positive().default(5),
        sweep_limit: z.number().int().positive().default(1000),
      })
      .strict()
      .optional(),
  })
  .strict();

export const WebhooksSchema = z
  .object({
    env_prefix: z.string().min(1).default("LG_WEBHOOK_"),
    headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be a valid HTTP header name"), z.string()).optional(),
    url: z
      .object({
        require_https: z.boolean().optional(),
        allowed_domains: z.array(z.string().regex(/^(\*\.)?[A-Za-z0-9.-]+$/, "must be a host name, or '*.' followed by one")).optional(),
        allowed_ports: z.array(z.number().int().min(1).max(65535)).optional(),
        max_url_length: z.number().int().positive().optional(),
        disable_loopback: z.boolean().default(true),
        allow_private_networks: z.boolean().default(false),
      })
      .strict()
      .optional(),
  })
  .strict();

export const LanggraphJsonSchema = z
  .object({
    graphs: z.record(z.string().min(1), graphEntry).refine((g) => Object.keys(g).length > 0, "must name at least one graph"),
    env: z.union([z.string(), z.record(z.string(), z.string()), z.array(z.string())]).optional(),
    http: http.optional(),
    auth: auth.optional(),
    store: store.optional(),
    checkpointer: checkpointer.optional(),
    // A module of custom encryption hooks (src/encryption/load-encryption.ts).
    encryption: z.object({ path: importString }).strict().optional(),
    webhooks: WebhooksSchema.optional(),
    // Generative UI: graph id -> the file exporting its components (src/generative-ui/).
    ui: z.record(z.string().min(1), z.string().min(1)).optional(),
    ui_config: z
      .object({ shared: z.array(z.string().min(1)).optional() })
      .strict()
      .optional(),
    $schema: z.string().optional(),
  })
  .strict();

/**
 * Keys the official CLIs (`@langchain/langgraph-cli`, Python's `langgraph-cli`) accept that shape a
 * Docker image: a project made for
 * `langgraph build` starts as it is, with one warning naming them.
 */
export const UNUSED_CLI_KEYS = [
  "_INTERNAL_docker_tag",
  "api_version",
  "base_image",
  "dependencies",
  "docker_compose_file",
  "dockerfile_lines",
  "image_distro",
  "keep_pkg_tools",
  "node_loader",
  "node_version",
  "package",
  "pip_config_file",
  "pip_installer",
  "project_root",
  "python_version",
  "source",
] as const;

export type LanggraphJson = z.infer<typeof LanggraphJsonSchema>;
export type HttpConfig = z.infer<typeof http>;

export interface GraphSpec {
  graphId: string;
  /** Absolute path of the module that exports the graph. */
  file: string;
  /** Export name; `default` when the import string has none. */
  exportName: string;
  description?: string;
}

export interface ProjectConfig {
  configPath: string;
  /** Directory of langgraph.json; relative paths in it resolve from here. */
  root: string;
  graphs: GraphSpec[];
  env: Record<string, string>;
  http: HttpConfig;
  raw: LanggraphJson;
  /**
   * Keys ignored, for one warning at start: `unused` ones the official CLIs know (UNUSED_CLI_KEYS),
   * and `unknown` ones no CLI knows, at any depth (`graph_timeout`, `http.cors.allow_origin`), which
   * the official CLIs drop too: the JS CLI's zod objects strip them, the Python CLI warns.
   */
  ignoredKeys: { unused: string[]; unknown: string[] };
  /** The env file `env` names, when it is missing and was allowed to be (LoadOptions.envFileOptional): for a warning at start. */
  missingEnvFile?: string;
}

export interface LoadOptions {
  /**
   * A missing env file is not an error: set for a control-plane deployment that has secrets, which
   * take that file's place as on the platform (a repository git-ignores its `.env`).
   */
  envFileOptional?: boolean;
}

/** Splits "./src/agent.ts:graph" into an absolute file and an export name. */
export function parseImportString(root: string, spec: string): { file: string; exportName: string } {
  const colon = spec.lastIndexOf(":");
  // A Windows drive letter ("C:\\...") is not an export separator.
  const hasExport = colon > 1 || (colon === 1 && !/^[A-Za-z]:[\\/]/.test(spec));
  const path = hasExport ? spec.slice(0, colon) : spec;
  const exportName = hasExport ? spec.slice(colon + 1) || "default" : "default";
  return { file: resolve(root, path), exportName };
}

export function loadProjectConfig(configPath: string, options: LoadOptions = {}): ProjectConfig {
  const absolute = resolve(configPath);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (err) {
    throw new StartupError(
      `Cannot read config file ${absolute}: ${(err as NodeJS.ErrnoException).code ?? err}. Pass --config with the path of your langgraph.json.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StartupError(`Config file ${absolute} is not valid JSON: ${(err as Error).message}`);
  }
  const unused = isObject(json) ? UNUSED_CLI_KEYS.filter((key) => Object.hasOwn(json, key)) : [];
  const parsed = parseIgnoringUnknownKeys(LanggraphJsonSchema, isObject(json) ? withoutKeys(json, unused) : json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    const missing = missingKey(json, issue);
    if (missing) throw new StartupError(`Config file ${absolute} has no '${where}'${missing}`);
    throw new StartupError(`Config file ${absolute} is invalid at '${where}': ${issue.message}`);
  }
  const root = dirname(absolute);
  const raw = parsed.data;
  const graphs = Object.entries(raw.graphs).map(([graphId, entry]): GraphSpec => {
    const spec = typeof entry === "string" ? entry : entry.path;
    const description = typeof entry === "string" ? undefined : entry.description;
    return { graphId, ...parseImportString(root, spec), ...(description ? { description } : {}) };
  });
  const env = readEnv(root, absolute, raw.env, options.envFileOptional === true);
  return {
    configPath: absolute,
    root,
    graphs,
    env: env.values,
    http: raw.http ?? http.parse({}),
    raw,
    ignoredKeys: { unused: [...unused], unknown: parsed.ignored },
    ...(env.missing ? { missingEnvFile: env.missing } : {}),
  };
}

/**
 * For a required key that is absent: what it takes, and the key present beside it that is likely a
 * typo for it (`"graph"` for `"graphs"`); undefined when the key is there but wrong.
 */
function missingKey(json: unknown, issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "invalid_type") return undefined;
  let parent = json;
  for (const step of issue.path.slice(0, -1)) parent = isObject(parent) ? parent[step as string] : undefined;
  const key = String(issue.path.at(-1) ?? "");
  if (!isObject(parent) || !key || Object.hasOwn(parent, key)) return undefined;
  const typo = closest(key, Object.keys(parent));
  const takes = key === "graphs" ? `a map of graph ids to modules, e.g. "graphs": {"agent": "./src/agent.ts:graph"}` : `a value of type ${issue.expected}`;
  return typo ? `, but has '${typo}': did you mean '${key}'? It takes ${takes}` : `: it is required, and takes ${takes}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function withoutKeys(json: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(json).filter(([key]) => !keys.includes(key)));
}

function readEnv(root: string, configPath: string, env: LanggraphJson["env"], optional: boolean): { values: Record<string, string>; missing?: string } {
  if (env === undefined || Array.isArray(env)) return { values: {} };
  if (typeof env !== "string") return { values: env };
  const file = resolve(root, env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && optional) return { values: {}, missing: file };
    throw new StartupError(
      `Config file ${configPath} names env file ${file}, which cannot be read (${code ?? err}). ` +
        (code === "ENOENT"
          ? `Create it, or remove "env" from the config; on a Gantry control plane, a deployment's secrets take its place.`
          : 'Make it readable, or remove "env" from the config.'),
    );
  }
  return { values: parseDotenv(text) };
}

/** Why starting without the env file is right, for the warning. */
export function missingEnvFileMessage(file: string): string {
  return `env file ${file}, named in langgraph.json, does not exist: the deployment's secrets take its place`;
}

/** Minimal .env reader: KEY=VALUE lines, '#' comments, optional quotes, `export ` prefix. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, "\n");
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    out[match[1]!] = value;
  }
  return out;
}
