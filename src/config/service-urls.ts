// Which variable names the PostgreSQL database and the Redis server, under Gantry's names and the
// official servers' (a deployment moved over keeps its environment), and whether its URL can work:
// a malformed URL is refused here with the variable's name, not later by the driver in its terms.
import { closest } from "../did-you-mean.js";
import { StartupError } from "../errors.js";

/** A URL and the variable it came from, for messages. */
export interface ServiceUrl {
  url: string;
  variable: string;
}

// First set wins. Gantry's own name first; then the platform's: the `_CUSTOM` names mean "this
// instance instead of the one provisioned" there, so they outrank DATABASE_URI / REDIS_URI.
export const DATABASE_VARIABLES = ["DATABASE_URL", "POSTGRES_URI_CUSTOM", "DATABASE_URI", "POSTGRES_URI"] as const;
export const REDIS_VARIABLES = ["REDIS_URL", "REDIS_URI_CUSTOM", "REDIS_URI"] as const;

export function databaseUrlFrom(env: NodeJS.ProcessEnv): ServiceUrl | undefined {
  const found = firstSet(env, DATABASE_VARIABLES);
  if (found) checkUrl(found, ["postgres:", "postgresql:"], "postgres://user:password@host:5432/database");
  return found;
}

export function redisUrlFrom(env: NodeJS.ProcessEnv): ServiceUrl | undefined {
  const cluster = env.REDIS_CLUSTER?.trim().toLowerCase();
  if (cluster !== undefined && cluster !== "" && !["false", "0", "true", "1"].includes(cluster)) {
    throw new StartupError(`REDIS_CLUSTER must be true or false, got '${env.REDIS_CLUSTER}'`);
  }
  // Gantry's pub/sub channels and multi-key commands assume one keyspace; Redis Cluster splits it.
  if (cluster === "true" || cluster === "1") {
    throw new StartupError(
      "REDIS_CLUSTER is set, but Gantry does not support Redis Cluster: point REDIS_URL (or REDIS_URI) at a standalone Redis, or at the primary of a replicated one, and unset REDIS_CLUSTER",
    );
  }
  const found = firstSet(env, REDIS_VARIABLES);
  if (found) checkUrl(found, ["redis:", "rediss:"], "redis://host:6379/0");
  return found;
}

function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): ServiceUrl | undefined {
  for (const variable of names) {
    const url = env[variable];
    if (url) return { url, variable };
  }
  return undefined;
}

/** Refuses a URL of the wrong scheme or without a host, naming the variable, the problem and the form. */
function checkUrl({ url, variable }: ServiceUrl, schemes: string[], form: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  const shown = redact(url, parsed);
  const expected = `write it as ${form}`;
  if (!parsed) throw new StartupError(`${variable} '${shown}' is not a URL; ${expected}`);
  if (!schemes.includes(parsed.protocol)) {
    const likely = closest(parsed.protocol, schemes);
    throw new StartupError(
      `${variable} '${shown}' starts with '${parsed.protocol}', not ${schemes.map((s) => `'${s}//'`).join(" or ")}${likely ? ` (a typo for '${likely}'?)` : ""}; ${expected}`,
    );
  }
  // PostgreSQL also takes its host as ?host=/socket/dir.
  if (!parsed.hostname && !parsed.searchParams.get("host")) {
    throw new StartupError(`${variable} '${shown}' names no host (is a '/' missing after '${parsed.protocol}'?); ${expected}`);
  }
}

function redact(url: string, parsed: URL | undefined): string {
  if (!parsed) return url.replace(/:[^:@/]*@/, ":***@");
  if (!parsed.password) return url;
  const copy = new URL(parsed.href);
  copy.password = "***";
  return copy.href;
}
