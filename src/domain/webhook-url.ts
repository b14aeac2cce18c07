// Run-completion webhook URLs are checked when the run is created (spec §5): loopback and relative
// targets are refused unless the project allows them, and the domain/port/https policy applies.
import { isIP } from "node:net";
import { invalid } from "../errors.js";

export interface WebhookUrlPolicy {
  require_https?: boolean;
  allowed_domains?: string[];
  allowed_ports?: number[];
  max_url_length?: number;
  disable_loopback?: boolean;
}

const LOOPBACK_HOSTS = new Set(["localhost", "host.docker.internal", "ip6-localhost", "ip6-loopback"]);

export function checkWebhookUrl(url: string, policy: WebhookUrlPolicy = {}): void {
  const disableLoopback = policy.disable_loopback ?? true;
  if (policy.max_url_length !== undefined && url.length > policy.max_url_length) {
    throw invalid(`Field 'webhook' is longer than the allowed ${policy.max_url_length} characters`);
  }
  if (url.startsWith("/")) {
    if (disableLoopback) throw invalid("Field 'webhook' is a relative URL, which would call this server; loopback webhooks are disabled (webhooks.url.disable_loopback)");
    return;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`Field 'webhook' is not a valid URL: '${url}'`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("Field 'webhook' must be an http or https URL");
  if (policy.require_https && parsed.protocol !== "https:") throw invalid("Field 'webhook' must use https (webhooks.url.require_https)");
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (disableLoopback && isLoopback(host)) {
    throw invalid(`Field 'webhook' points at a loopback address (${host}); loopback webhooks are disabled (webhooks.url.disable_loopback)`);
  }
  if (policy.allowed_domains && !policy.allowed_domains.some((d) => domainMatches(host, d.toLowerCase()))) {
    throw invalid(`Field 'webhook' host ${host} is not in webhooks.url.allowed_domains`);
  }
  if (policy.allowed_ports) {
    const port = Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80));
    if (!policy.allowed_ports.includes(port)) throw invalid(`Field 'webhook' port ${port} is not in webhooks.url.allowed_ports`);
  }
}

function isLoopback(host: string): boolean {
  if (LOOPBACK_HOSTS.has(host) || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.") || host === "0.0.0.0";
  if (isIP(host) === 6) return host === "::1" || host === "::" || host.startsWith("::ffff:127.");
  return false;
}

/** `*.example.com` matches subdomains only; a plain name matches itself. */
function domainMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return host === pattern;
}
