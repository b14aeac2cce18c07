// Loads the `Auth` object named by `auth.path` in langgraph.json. The user's project may bring its
// own copy of @langchain/langgraph-sdk, so the object is recognised by the handler table every
// `Auth` keeps (`~handlerCache`), never by `instanceof` against our copy.
import { parseImportString } from "../config/langgraph-config.js";
import { StartupError } from "../errors.js";
import { importExport } from "../runtime/load-module.js";

export type AuthenticateHook = (request: Request) => unknown;
export type AuthorizeHook = (args: Record<string, unknown>) => unknown;

export interface AuthHooks {
  authenticate?: AuthenticateHook;
  /** Keyed as registered: "*", "threads", "threads:create", "*:read". */
  handlers: ReadonlyMap<string, AuthorizeHook>;
}

export async function loadAuth(root: string, spec: string): Promise<AuthHooks> {
  const target = parseImportString(root, spec);
  const exported = await importExport(target, "auth.path");
  const cache = (exported as { "~handlerCache"?: unknown } | null)?.["~handlerCache"];
  if (typeof cache !== "object" || cache === null) {
    throw new StartupError(
      `auth.path: '${target.exportName}' exported from ${target.file} is not an Auth object (create it with new Auth() from @langchain/langgraph-sdk/auth).`,
    );
  }
  const { authenticate, callbacks } = cache as { authenticate?: unknown; callbacks?: Record<string, unknown> };
  const handlers = new Map<string, AuthorizeHook>();
  for (const [event, handler] of Object.entries(callbacks ?? {})) {
    if (typeof handler === "function") handlers.set(event, handler as AuthorizeHook);
  }
  return { ...(typeof authenticate === "function" ? { authenticate: authenticate as AuthenticateHook } : {}), handlers };
}
