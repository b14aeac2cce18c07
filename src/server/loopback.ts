// `new Client()` without an apiUrl inside the server (a graph node, an http.app route): the SDK's
// client picks up a fetch and a base URL the platform leaves on globalThis, so such calls reach
// this server in-process, through the whole app as any request does. They act for their caller:
// the user of the run whose node calls, or the authenticated user of the http.app request that
// calls (as the platform's in-process client does); with neither they authenticate as any request.
import { AsyncLocalStorage } from "node:async_hooks";
import { getConfig } from "@langchain/langgraph";
import type { Context } from "hono";
import type { Access, AuthUser } from "../domain/access.js";
import { normaliseUser } from "../auth/user.js";

/** The keys the SDK's Client reads when it is given no apiUrl. */
const FETCH_KEY = Symbol.for("langgraph_api:fetch");
const URL_KEY = Symbol.for("langgraph_api:url");
/** Marks a request's env as a loopback call; only code in this process can set it. */
const LOOPBACK = Symbol("gantry.loopback");

/** Who a loopback call acts for: an http.app request's Access, or a run's stored user. */
export type LoopbackCaller = { access: Access } | { user: AuthUser };

type AppFetch = (request: Request, env: unknown) => Response | Promise<Response>;

export interface Loopback {
  /** Sends the calls to this app from now on; before it, they fail with a message saying why. */
  bind(fetch: AppFetch): void;
  /** The server's URL once it listens, for clients made from now on. */
  listening(url: string): void;
  /** Runs an http.app request's handlers so that loopback calls they make act for its caller. */
  withRequest<T>(c: Context, run: () => Promise<T>): Promise<T>;
}

/**
 * Registers the loopback for this process. Done before graphs and http.app are imported: a module
 * may create its Client at import, and the client reads the globals then. `baseUrl` is where the
 * server means to listen (with its mount prefix) until listening() says where it does; only its
 * path matters, as the calls never leave the process.
 */
export function registerLoopback(baseUrl: string): Loopback {
  const requests = new AsyncLocalStorage<Context>();
  let target: AppFetch | undefined;
  const loopbackFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (!target) throw new Error("The server is still starting: a Client without apiUrl can call it once the graphs have loaded");
    const caller = callerOf(requests.getStore());
    return target(new Request(input, init), { [LOOPBACK]: { caller } });
  };
  const globals = globalThis as Record<symbol, unknown>;
  globals[FETCH_KEY] = loopbackFetch;
  globals[URL_KEY] = baseUrl;
  return {
    bind: (fetch) => {
      target = fetch;
    },
    listening: (url) => {
      globals[URL_KEY] = url;
    },
    withRequest: (c, run) => requests.run(c, run),
  };
}

/** The caller of a loopback request, for the auth middleware; undefined for any other request. */
export function loopbackCaller(c: Context): LoopbackCaller | undefined {
  const env = c.env as Record<symbol, { caller?: LoopbackCaller }> | undefined;
  return env?.[LOOPBACK]?.caller;
}

/** The run's user comes first: a run started inside a request's handling carries that request's context too. */
function callerOf(request: Context | undefined): LoopbackCaller | undefined {
  const configurable = getConfig()?.configurable;
  const runUser = configurable?.langgraph_auth_user;
  const identity = (runUser as { identity?: unknown } | undefined)?.identity;
  if (typeof runUser === "object" && typeof identity === "string" && identity !== "") {
    const user = normaliseUser(runUser);
    const permissions = configurable?.langgraph_auth_permissions;
    return { user: Array.isArray(permissions) ? { ...user, permissions: permissions.filter((p): p is string => typeof p === "string") } : user };
  }
  const access = request?.get("access") as Access | undefined;
  return access ? { access } : undefined;
}
