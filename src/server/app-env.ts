// Per-request values the middleware chain shares.
import type { Access } from "../domain/access.js";

export type AppEnv = {
  Variables: {
    requestId: string;
    /** The route pattern that answered, for metrics; unset when no route matched. */
    routePattern: string;
    /** The caller under custom auth; unset when langgraph.json has no `auth`. */
    access: Access | undefined;
    /** The body as the user's http.app parsed it with `c.req.json()`, amendments included (user-app.ts). */
    userJson: Promise<unknown> | undefined;
    /** Counts an SSE stream as open for /metrics; the function it returns closes it. Unset without metrics. */
    streamOpened: (() => () => void) | undefined;
  };
};

/** The caller's Access, or undefined when there is no custom auth. */
export function accessOf(c: { get(key: "access"): Access | undefined }): Access | undefined {
  return c.get("access");
}
