// source_config.custom_url: a deployment's own address. The router sends every request whose Host
// header is that address's host to the deployment, at the root path, so only an origin is
// accepted (scheme, host, optional port), never a path, query or credentials.

export interface CustomUrl {
  /** The origin, as users are told it: `https://agent.example.com`. */
  url: string;
  /** What a request's Host header must be: host name, and the port when it is not the scheme's default. */
  host: string;
}

/** The parsed address, or why it is refused. */
export function parseCustomUrl(text: string): CustomUrl | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: "must be an absolute http(s) URL such as https://agent.example.com" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { error: "must be an http or https URL" };
  if (url.username || url.password) return { error: "must not hold credentials" };
  if (url.pathname !== "/" || url.search || url.hash)
    return { error: "must be an origin only (no path, query or fragment): the deployment is served at its root" };
  return { url: url.origin, host: url.host };
}

/**
 * The custom hosts a Host header can stand for. Clients may name the default port explicitly
 * (`agent.example.com:443`); a URL's host never holds it.
 */
export function hostCandidates(hostHeader: string): string[] {
  const host = hostHeader.trim().toLowerCase();
  if (!host) return [];
  const withoutDefaultPort = host.replace(/:(80|443)$/, "");
  return withoutDefaultPort === host ? [host] : [host, withoutDefaultPort];
}
