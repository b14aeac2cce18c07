// A user's `http.app` beside the API, composed as both official servers compose a Hono app: its
// routes and middleware join our router ahead of the API's routes, on the same request context.
// So its middleware runs around API requests too (reading the body, setting headers after
// `await next()`), and a request none of its routes answers reaches the API. Its notFound is not
// used, as on the platform: the API answers what no user route matches. Its onError answers for
// its own handlers only. Anything else with a `fetch` is asked first and passed over on a 404.
// The body a user handler parsed with `c.req.json()` is the one the API's route reads, so a
// middleware may amend a request in place (the platform's Hono did so before `json()` stopped
// caching its result).
import type { Context, Hono, MiddlewareHandler, Next } from "hono";
import type { AppEnv } from "./app-env.js";
import type { Loopback } from "./loopback.js";

type UserHandler = (c: Context, next: Next) => unknown;
type UserErrorHandler = (err: Error, c: Context) => Response | Promise<Response>;

/** What a Hono app exposes, whichever copy of Hono the user's project has. */
export interface HonoLikeApp {
  routes: Array<{ method: string; path: string; handler: UserHandler }>;
  errorHandler: UserErrorHandler;
  fetch: (request: Request, ...rest: unknown[]) => Response | Promise<Response>;
}

export interface FetchApp {
  fetch: (request: Request, ...rest: unknown[]) => Response | Promise<Response>;
}

export type UserApp = HonoLikeApp | FetchApp;

export function isHonoLike(app: UserApp): app is HonoLikeApp {
  const candidate = app as Partial<HonoLikeApp>;
  return Array.isArray(candidate.routes) && typeof candidate.errorHandler === "function";
}

/** Adds the user's app to `api` at this point of its middleware chain. */
export function mountUserApp(api: Hono<AppEnv>, app: UserApp, options: { prefix: string; loopback?: Loopback }): void {
  if (!isHonoLike(app)) {
    api.use(fetchFirst(app, options.prefix));
    return;
  }
  const onError = ownErrorHandler(app);
  const { loopback } = options;
  for (const { method, path, handler } of app.routes) {
    api.on(method, path, async (c, next) => {
      shareParsedJson(c);
      let passedOn = false;
      const onward = () => {
        passedOn = true;
        return next();
      };
      try {
        const answer = await (loopback ? loopback.withRequest(c, async () => handler(c, onward)) : handler(c, onward));
        if (!passedOn) c.set("routePattern", "http.app");
        return answer as Response | undefined;
      } catch (err) {
        if (!onError || !(err instanceof Error)) throw err;
        // As Hono's own app.route() does: the user's answer replaces whatever was answered so far.
        c.res = await onError(err, c);
        return c.res;
      }
    });
  }
}

/** What the user's handlers parsed from the body, for the API's route to read instead of the body. */
export function bodyParsedByUserApp(c: Context): Promise<unknown> | undefined {
  return (c as Context<AppEnv>).get("userJson");
}

/** Makes `c.req.json()` parse once per request and hand every caller the same object. */
function shareParsedJson(c: Context<AppEnv>): void {
  if (Object.hasOwn(c.req, "json")) return;
  const parse = c.req.json.bind(c.req);
  const json = () => {
    let parsed = c.get("userJson");
    if (!parsed) {
      parsed = parse();
      c.set("userJson", parsed);
    }
    return parsed;
  };
  Object.defineProperty(c.req, "json", { value: json });
}

/** The app's onError, when it set one: a fresh app of the same Hono has the default handler. */
function ownErrorHandler(app: HonoLikeApp): UserErrorHandler | undefined {
  const HonoClass = (Object.getPrototypeOf(app) as { constructor?: new () => HonoLikeApp } | null)?.constructor;
  if (!HonoClass) return undefined;
  try {
    return app.errorHandler === new HonoClass().errorHandler ? undefined : app.errorHandler;
  } catch {
    return app.errorHandler;
  }
}

function fetchFirst(app: FetchApp, prefix: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The user's routes are written without the mount prefix, as on the platform.
    const response = await app.fetch(prefix ? withoutPrefix(c.req.raw, prefix) : c.req.raw);
    if (response.status !== 404) {
      c.set("routePattern", "http.app");
      return response;
    }
    await next();
  };
}

function withoutPrefix(request: Request, prefix: string): Request {
  const url = new URL(request.url);
  if (url.pathname === prefix || url.pathname.startsWith(prefix + "/")) url.pathname = url.pathname.slice(prefix.length) || "/";
  return new Request(url, request);
}
