// Run-completion webhook URLs are checked when the run is created (spec §5): loopback, private,
// link-local and metadata targets are refused unless the project allows them, the domain/port/https
// policy applies, and a host name is resolved so a name pointing into a private network is refused
// too. Delivery checks the resolved address again (webhooks/), since DNS answers can change.
import { isIP } from "node:net";
import type { WebhookUrlPolicy } from "../config/webhook-config.js";
import { invalid } from "../errors.js";
import { addressRefusal } from "./webhook-address.js";

/** Resolves a host name to its addresses; rejects when it cannot. */
export type ResolveHost = (host: string) => Promise<string[]>;

const LOOPBACK_HOSTS = new Set(["localhost", "host.docker.internal", "ip6-localhost", "ip6-loopback"]);

/** The policy checks that need no network; returns the parsed URL (null for a relative one). */
export function checkWebhookUrl(url: string, policy: WebhookUrlPolicy = {}): URL | null {
  const disableLoopback = policy.disable_loopback ?? true;
  if (policy.max_url_length !== undefined && url.length > policy.max_url_length) {
    throw invalid(`Field 'webhook' is longer than the allowed ${policy.max_url_length} characters (webhooks.url.max_url_length)`);
  }
  if (url.startsWith("/")) {
    if (disableLoopback)
      throw invalid("Field 'webhook' is a relative URL, which would call this server; loopback webhooks are disabled (webhooks.url.disable_loopback)");
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`Field 'webhook' is not a valid URL: '${url}'`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("Field 'webhook' must be an http or https URL");
  if (policy.require_https && parsed.protocol !== "https:") throw invalid("Field 'webhook' must use https (webhooks.url.require_https)");
  const host = webhookHost(parsed);
  if (disableLoopback && isLoopbackName(host)) {
    throw invalid(`Field 'webhook' points at a loopback address (${host}); loopback webhooks are disabled (webhooks.url.disable_loopback)`);
  }
  if (isIP(host)) {
    const refusal = addressRefusal(host, policy);
    if (refusal) throw invalid(`Field 'webhook' is refused: ${refusal}`);
  }
  if (policy.allowed_domains && !policy.allowed_domains.some((d) => domainMatches(host, d.toLowerCase()))) {
    throw invalid(`Field 'webhook' host ${host} is not in webhooks.url.allowed_domains`);
  }
  if (policy.allowed_ports) {
    const port = Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80));
    if (!policy.allowed_ports.includes(port)) throw invalid(`Field 'webhook' port ${port} is not in webhooks.url.allowed_ports`);
  }
  return parsed;
}

/**
 * All the checks, resolving a host name too. A name that does not resolve now is accepted: DNS may
 * be down for a moment, and delivery checks the address it connects to anyway.
 */
export async function checkWebhookTarget(url: string, policy: WebhookUrlPolicy, resolveHost: ResolveHost): Promise<void> {
  const parsed = checkWebhookUrl(url, policy);
  if (!parsed) return;
  const host = webhookHost(parsed);
  if (isIP(host)) return;
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    return;
  }
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw invalid(`Field 'webhook' is refused: ${host} resolves to ${refusal}`);
  }
}

/** The URL's host without IPv6 brackets, lower-cased. */
export function webhookHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

/** A name with its trailing dot (the DNS root, `localhost.`) is the same name: resolvers answer both alike. */
function isLoopbackName(host: string): boolean {
  const name = host.replace(/\.+$/, "");
  return LOOPBACK_HOSTS.has(name) || name.endsWith(".localhost");
}

/** `*.example.com` matches subdomains only; a plain name matches itself. */
function domainMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return host === pattern;
}
