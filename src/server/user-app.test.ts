import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logging.js";
import type { AppEnv } from "./app-env.js";
import { errorHandler } from "./errors.js";
import { mountUserApp, type UserApp } from "./user-app.js";
import { readJson } from "./validation.js";

/** An API with one route that echoes the JSON body it reads, the user's app mounted ahead of it. */
function apiWith(userApp: Hono | UserApp) {
  const api = new Hono<AppEnv>();
  let answeredBy = "";
  api.use(async (c, next) => {
    await next();
    answeredBy = c.get("routePattern") ?? "unmatched";
  });
  // Hono's types call errorHandler private; at run time it is what app.route() reads too.
  mountUserApp(api, userApp as UserApp, { prefix: "" });
  api.post("/threads", async (c) => {
    c.set("routePattern", "/threads");
    return c.json({ received: await readJson(c) });
  });
  api.get("/fails", () => {
    throw new HTTPException(409, { message: "API conflict" });
  });
  api.notFound((c) => c.json({ detail: "No route" }, 404));
  api.onError(errorHandler(silentLogger));
  const post = (path: string, body: unknown) =>
    api.request(path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  return { api, post, answeredBy: () => answeredBy };
}

describe("mountUserApp", () => {
  it("runs the app's routes first and hands the API what they do not answer, ignoring the app's notFound", async () => {
    const user = new Hono();
    user.get("/hello", (c) => c.text("hi"));
    user.notFound((c) => c.text("user 404", 404));
    const { api, post, answeredBy } = apiWith(user);
    expect(await (await api.request("/hello")).text()).toBe("hi");
    expect(answeredBy()).toBe("http.app");
    expect(await (await post("/threads", { a: 1 })).json()).toEqual({ received: { a: 1 } });
    expect(answeredBy()).toBe("/threads");
    expect(await (await api.request("/nowhere")).json()).toEqual({ detail: "No route" });
  });

  it("answers errors of the app's own handlers with its onError, and the API's with the API's", async () => {
    const user = new Hono();
    user.use(async (c, next) => {
      await next();
      if (c.req.path === "/threads") throw new Error("middleware broke after the API answered");
    });
    user.get("/boom", () => {
      throw new Error("route broke");
    });
    user.onError((err, c) => c.json({ user_error: err.message }, 500));
    const { api, post } = apiWith(user);
    expect(await (await api.request("/boom")).json()).toEqual({ user_error: "route broke" });
    const failed = await post("/threads", {});
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ user_error: "middleware broke after the API answered" });
    const conflict = await api.request("/fails");
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toEqual({ detail: "API conflict" });
  });

  it("gives the API the body a middleware read, with what it changed in place, and keeps routes of a sub-app under their base path", async () => {
    const user = new Hono();
    user.use("/threads", async (c, next) => {
      const body = await c.req.json<Record<string, unknown>>();
      body.stamped = true;
      await next();
      c.header("x-after", "set");
    });
    const admin = new Hono().basePath("/admin");
    admin.get("/ping", (c) => c.text("pong"));
    user.route("/", admin);
    const { api, post } = apiWith(user);
    const answer = await post("/threads", { a: 1 });
    expect(await answer.json()).toEqual({ received: { a: 1, stamped: true } });
    expect(answer.headers.get("x-after")).toBe("set");
    expect(await (await api.request("/admin/ping")).text()).toBe("pong");
  });

  it("keeps the status of an HTTPException its middleware throws, from its own copy of Hono too", async () => {
    class TheirHttpException extends Error {
      constructor(
        readonly status: number,
        message: string,
      ) {
        super(message);
      }
      getResponse() {
        return new Response(this.message, { status: this.status });
      }
    }
    const user = new Hono();
    user.use("/threads", async (c, next) => {
      if (c.req.header("x-key") !== "open sesame") throw new TheirHttpException(401, "Missing or wrong x-key");
      await next();
    });
    const { post } = apiWith(user);
    const refused = await post("/threads", {});
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ detail: "Missing or wrong x-key" });
  });

  it("asks an app that only has fetch first and passes a 404 on to the API", async () => {
    const fetchApp = { fetch: (request: Request) => (new URL(request.url).pathname === "/mine" ? new Response("mine") : new Response(null, { status: 404 })) };
    const { api, post } = apiWith(fetchApp);
    expect(await (await api.request("/mine")).text()).toBe("mine");
    expect(await (await post("/threads", { b: 2 })).json()).toEqual({ received: { b: 2 } });
  });
});
