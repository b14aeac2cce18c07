// Which headers cross the router, each way. Hop-by-hop headers (RFC 9110 §7.6.1: the fixed list and
// every name the Connection header lists) belong to one connection and never cross. The forwarding
// headers are the router's own account of the request: a client's X-Forwarded-* and Forwarded are
// replaced, not appended to, because nothing in front of the router is trusted to have set them.
// Bodies are decoded by the router's HTTP client (fetch), so a decoded answer loses its
// Content-Encoding and Content-Length instead of arriving labelled gzip while plain.

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "proxy-authorization",
  "proxy-authenticate",
];

/** Set by the router from what it saw; whatever a client sent under these names is dropped. */
const FORWARDING = ["forwarded", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "x-real-ip"];

/** The codings fetch (undici) decodes itself; it hands any other coding on as it came. */
const DECODED_CODINGS = new Set(["gzip", "x-gzip", "deflate", "br"]);

/** Bodies of these statuses are empty, so fetch decodes nothing. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function dropHopByHop(headers: Headers): void {
  const listed = (headers.get("connection") ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...listed]) headers.delete(name);
}

export interface ClientView {
  /** The peer address of the connection the request came on. */
  address: string | undefined;
  /** "http" or "https": the scheme of the URL the router was reached at. */
  proto: string;
  /** The Host header the client sent. */
  host: string | undefined;
}

/** The headers a deployment receives. The control plane's API key and the body's framing stay behind. */
export function upstreamRequestHeaders(incoming: Headers, client: ClientView): Headers {
  const headers = new Headers(incoming);
  dropHopByHop(headers);
  for (const name of [...FORWARDING, "host", "x-api-key", "content-length"]) headers.delete(name);
  // Router and deployment share a machine: compressing between them only costs CPU twice.
  headers.set("accept-encoding", "identity");
  if (client.address) headers.set("x-forwarded-for", client.address);
  headers.set("x-forwarded-proto", client.proto);
  if (client.host) headers.set("x-forwarded-host", client.host);
  return headers;
}

/** The headers the client receives from a deployment's answer that fetch read (and maybe decoded). */
export function clientResponseHeaders(upstream: Response, method: string): Headers {
  const headers = new Headers(upstream.headers);
  dropHopByHop(headers);
  // The body is re-framed by the router's own server: the upstream length may no longer hold.
  headers.delete("content-length");
  const encoding = headers.get("content-encoding");
  // Read as fetch reads it: an empty entry ("gzip,") is a coding it does not know, so it decodes nothing.
  const codings =
    encoding === null
      ? []
      : encoding
          .toLowerCase()
          .split(",")
          .map((c) => c.trim());
  const decoded = codings.length > 0 && method !== "HEAD" && !NULL_BODY_STATUSES.has(upstream.status) && codings.every((c) => DECODED_CODINGS.has(c));
  if (decoded) headers.delete("content-encoding");
  return headers;
}
