// Run-completion webhooks: langgraph.json `webhooks` (or the LANGGRAPH_WEBHOOKS variable, which
// replaces it), `http.disable_webhooks`, and the GANTRY_WEBHOOK_* delivery settings -> one typed
// slice of the config. Header templates (`${{ env.VAR }}`) are resolved here, once, at start-up.
import { z } from "zod";
import { StartupError } from "../errors.js";
import type { ProjectConfig } from "./langgraph-config.js";
import { WebhooksSchema } from "./langgraph-config.js";

/** Which webhook targets runs may name (`webhooks.url`). */
export interface WebhookUrlPolicy {
  require_https?: boolean;
  allowed_domains?: string[];
  allowed_ports?: number[];
  max_url_length?: number;
  /** Refuse loopback targets and relative URLs (the platform's default: true). */
  disable_loopback?: boolean;
  /** Allow private and link-local targets (RFC 1918, CGNAT, fc00::/7, fe80::/10); metadata services stay refused. */
  allow_private_networks?: boolean;
}

export interface WebhookConfig {
  /** False with http.disable_webhooks: runs still execute, nothing is recorded or sent. */
  enabled: boolean;
  policy: WebhookUrlPolicy;
  /** Static headers from webhooks.headers, templates resolved. */
  headers: Record<string, string>;
  /** Key for the HMAC-SHA256 `webhook-signature` header (GANTRY_WEBHOOK_SIGNING_SECRET); unsigned when unset. */
  signingSecret?: string;
  /** One attempt's deadline, connection to last byte. */
  timeoutMs: number;
  /** Attempts before a delivery is given up (the first one included). */
  maxAttempts: number;
  /** Backoff before retry n is retryBaseMs * 2^(n-1), capped at retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often the delivery loop looks for due deliveries another process recorded. */
  pollMs: number;
}

const EnvSchema = z.object({
  LANGGRAPH_WEBHOOKS: z.string().optional(),
  GANTRY_WEBHOOK_SIGNING_SECRET: z.string().min(1).optional(),
  GANTRY_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  GANTRY_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().positive().max(100).default(5),
  GANTRY_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().nonnegative().default(1_000),
  GANTRY_WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().nonnegative().default(300_000),
  GANTRY_WEBHOOK_POLL_MS: z.coerce.number().int().positive().default(1_000),
});

const TEMPLATE = /\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export function loadWebhookConfig(project: ProjectConfig, env: NodeJS.ProcessEnv): WebhookConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StartupError(`Environment variable ${issue.path.join(".")} is invalid: ${issue.message}`);
  }
  const e = parsed.data;
  const block = e.LANGGRAPH_WEBHOOKS === undefined ? project.raw.webhooks : parseWebhooksVariable(e.LANGGRAPH_WEBHOOKS);
  const envPrefix = block?.env_prefix ?? "LG_WEBHOOK_";
  // Variables from langgraph.json `env` count as set, as they are for the graphs.
  const variables = { ...project.env, ...env };
  return {
    enabled: !project.http.disable_webhooks,
    policy: block?.url ?? {},
    headers: resolveHeaderTemplates(block?.headers ?? {}, variables, envPrefix),
    ...(e.GANTRY_WEBHOOK_SIGNING_SECRET ? { signingSecret: e.GANTRY_WEBHOOK_SIGNING_SECRET } : {}),
    timeoutMs: e.GANTRY_WEBHOOK_TIMEOUT_MS,
    maxAttempts: e.GANTRY_WEBHOOK_MAX_ATTEMPTS,
    retryBaseMs: e.GANTRY_WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: e.GANTRY_WEBHOOK_RETRY_MAX_MS,
    pollMs: e.GANTRY_WEBHOOK_POLL_MS,
  };
}

function parseWebhooksVariable(text: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new StartupError(`Environment variable LANGGRAPH_WEBHOOKS is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = WebhooksSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StartupError(`Environment variable LANGGRAPH_WEBHOOKS is invalid at '${issue.path.join(".") || "(top level)"}': ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Replaces `${{ env.NAME }}` in header values. Only variables starting with the prefix may be read,
 * so a header can't leak an unrelated secret; a missing one stops start-up rather than sending "".
 */
export function resolveHeaderTemplates(headers: Record<string, string>, env: Record<string, string | undefined>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers)) {
    out[name] = template.replace(TEMPLATE, (_match, variable: string) => {
      if (!variable.startsWith(prefix)) {
        throw new StartupError(
          `webhooks.headers.${name} reads environment variable ${variable}, but only variables starting with '${prefix}' (webhooks.env_prefix) may be used. Rename the variable or change env_prefix.`,
        );
      }
      const value = env[variable];
      if (value === undefined)
        throw new StartupError(`webhooks.headers.${name} reads environment variable ${variable}, which is not set. Set it before starting the server.`);
      return value;
    });
  }
  return out;
}
