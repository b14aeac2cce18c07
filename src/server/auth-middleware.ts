// Authenticates every request, once, before any route runs, and leaves the caller's Access for the
// routes. Only installed when langgraph.json has `auth`; /ok, /info, the API docs, the thread/run
// view's files (/gantry) and generative UI's bundles (GET /ui/...) stay open. A header such as `x-auth-scheme` changes nothing here: every other request goes
// through `authenticate`, except an in-process call (loopback.ts) made for a known caller.
import type { MiddlewareHandler } from "hono";
import { accessFor } from "../auth/authorize.js";
import { authenticateRequest } from "../auth/authenticate.js";
import type { AuthenticateHook, AuthHooks } from "../auth/load-auth.js";
import type { Logger } from "../logging.js";
import type { AppEnv } from "./app-env.js";
import { loopbackCaller } from "./loopback.js";
import { VIEWER_PATH } from "./ui.js";

/**
 * What stays reachable without credentials: the health check, the server's version and flags
 * (/info, open on the official server too, where clients read it before signing in), and the API
 * description.
 */
export const OPEN_PATHS = ["/ok", "/info", "/docs", "/openapi.json"] as const;

export function authMiddleware(
  hooks: AuthHooks & { authenticate: AuthenticateHook },
  options: { prefix: string; log: Logger; openUi: boolean },
): MiddlewareHandler<AppEnv> {
  const open = new Set(OPEN_PATHS.map((path) => options.prefix + path));
  const viewer = options.prefix + VIEWER_PATH;
  const generativeUi = options.prefix + "/ui";
  const under = (path: string, root: string) => path === root || path.startsWith(root + "/");
  // The view is static files holding no data; it asks for the auth header the API wants and sends
  // it with every API call, so the page itself must load without one. Generative UI's bundles are
  // loaded by <script> and <link> tags, which send no header (the official server lets GET /ui
  // through too); the POST that names them is authenticated.
  const isUi = (method: string, path: string) => options.openUi && method === "GET" && (under(path, viewer) || under(path, generativeUi));
  return async function authenticate(c, next) {
    // Preflights carry no credentials by design; CORS answers them.
    if (c.req.method === "OPTIONS" || open.has(c.req.path) || isUi(c.req.method, c.req.path)) return next();
    const caller = loopbackCaller(c);
    if (caller) {
      c.set("access", "access" in caller ? caller.access : accessFor(hooks, caller.user));
      return next();
    }
    try {
      c.set("access", accessFor(hooks, await authenticateRequest(hooks.authenticate, c.req.raw)));
    } catch (err) {
      // The status only: what the user's code threw may quote a credential.
      options.log.debug("authentication refused", { request_id: c.get("requestId"), status: (err as { status?: number }).status });
      throw err;
    }
    await next();
  };
}
