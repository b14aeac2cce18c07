import { describe, expect, it } from "vitest";
import { clientResponseHeaders, upstreamRequestHeaders } from "./forward-headers.js";

const client = { address: "192.0.2.10", proto: "http", host: "cp.example.test:8124" };

describe("upstreamRequestHeaders", () => {
  it("drops hop-by-hop headers, those named in Connection too, and the control plane's key", () => {
    const headers = upstreamRequestHeaders(
      new Headers({
        connection: "keep-alive, X-Private",
        "x-private": "1",
        te: "trailers",
        "proxy-authorization": "Basic x",
        upgrade: "websocket",
        "x-api-key": "k",
        accept: "application/json",
      }),
      client,
    );
    expect([...headers.keys()].sort()).toEqual(["accept", "accept-encoding", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto"]);
  });

  it("replaces a client's forwarding headers with what the router saw", () => {
    const headers = upstreamRequestHeaders(
      new Headers({ "x-forwarded-for": "203.0.113.1", forwarded: "for=203.0.113.1", "x-forwarded-host": "evil.test", "x-real-ip": "203.0.113.1" }),
      client,
    );
    expect(Object.fromEntries(headers)).toEqual({
      "accept-encoding": "identity",
      "x-forwarded-for": "192.0.2.10",
      "x-forwarded-host": "cp.example.test:8124",
      "x-forwarded-proto": "http",
    });
  });
});

describe("clientResponseHeaders", () => {
  const answer = (headers: Record<string, string>, status = 200) => new Response(status === 204 ? null : "x", { status, headers });

  it("drops the encoding fetch decoded and any upstream length", () => {
    const headers = clientResponseHeaders(answer({ "content-encoding": "gzip", "content-length": "20", vary: "Accept-Encoding" }), "GET");
    expect(headers.get("content-encoding")).toBeNull();
    expect(headers.get("content-length")).toBeNull();
    expect(headers.get("vary")).toBe("Accept-Encoding");
  });

  it("keeps an encoding fetch hands on undecoded: an unknown coding, a HEAD, an empty status", () => {
    expect(clientResponseHeaders(answer({ "content-encoding": "zstd" }), "GET").get("content-encoding")).toBe("zstd");
    expect(clientResponseHeaders(answer({ "content-encoding": "gzip, zstd" }), "GET").get("content-encoding")).toBe("gzip, zstd");
    expect(clientResponseHeaders(answer({ "content-encoding": "gzip," }), "GET").get("content-encoding")).toBe("gzip,");
    expect(clientResponseHeaders(answer({ "content-encoding": "gzip" }), "HEAD").get("content-encoding")).toBe("gzip");
    expect(clientResponseHeaders(answer({ "content-encoding": "gzip" }, 204), "GET").get("content-encoding")).toBe("gzip");
  });

  it("drops hop-by-hop response headers, those named in Connection too", () => {
    const headers = clientResponseHeaders(
      answer({ connection: "x-private", "x-private": "1", "keep-alive": "timeout=5", "proxy-authenticate": "Basic", trailer: "x-t", "x-kept": "yes" }),
      "GET",
    );
    expect([...headers.keys()].sort()).toEqual(["content-type", "x-kept"]);
  });
});
