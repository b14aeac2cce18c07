import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { HttpConfig } from "../config/langgraph-config.js";
import { corsMiddleware } from "./cors.js";

function appWith(cors: HttpConfig["cors"], allowOrigins: string[]) {
  const app = new Hono();
  app.use(corsMiddleware({ cors } as HttpConfig, allowOrigins));
  app.get("/json", (c) => c.json({ ok: true }));
  app.get("/raw", () => new Response("raw", { headers: { "X-Own": "1" } }));
  return app;
}

const get = (app: Hono, path: string, origin: string) => app.request(path, { headers: { Origin: origin } });

describe("corsMiddleware", () => {
  it("echoes an allowed origin, varies on Origin, and allows credentials when configured", async () => {
    const app = appWith({ allow_credentials: true }, ["https://a.example"]);
    const response = await get(app, "/json", "https://a.example");
    expect(response.headers.get("access-control-allow-origin")).toBe("https://a.example");
    expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    expect(response.headers.get("vary")).toBe("Origin");
    expect(await response.json()).toEqual({ ok: true });
  });

  it("gives an origin that is not allowed no Allow-Origin header", async () => {
    const app = appWith({ allow_origin_regex: "^https://.*\\.good\\.example$" }, ["https://a.example"]);
    expect((await get(app, "/json", "https://evil.example")).headers.get("access-control-allow-origin")).toBeNull();
    expect((await get(app, "/json", "https://x.good.example")).headers.get("access-control-allow-origin")).toBe("https://x.good.example");
  });

  it("never allows credentials with a wildcard origin", async () => {
    const response = await get(appWith({ allow_credentials: true }, ["*"]), "/json", "https://any.example");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("keeps a handler's own headers on a Response it built itself", async () => {
    const response = await get(appWith(undefined, ["*"]), "/raw", "https://any.example");
    expect(response.headers.get("x-own")).toBe("1");
    expect(response.headers.get("access-control-expose-headers")).toContain("X-Pagination-Total");
    expect(await response.text()).toBe("raw");
  });

  it("answers a preflight with the configured methods, headers and max age", async () => {
    const app = appWith({ allow_methods: ["GET", "POST"], allow_headers: ["x-api-key"], max_age: 600 }, ["https://a.example"]);
    const response = await app.request("/json", {
      method: "OPTIONS",
      headers: { Origin: "https://a.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-methods")).toBe("GET,POST");
    expect(response.headers.get("access-control-allow-headers")).toBe("x-api-key");
    expect(response.headers.get("access-control-max-age")).toBe("600");
    expect(response.headers.get("vary")).toBe("Origin, Access-Control-Request-Headers");
  });
});
