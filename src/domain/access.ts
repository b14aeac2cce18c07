// What the domain knows about the caller under custom auth (spec §6): who they are, and a way to
// ask the user's handlers about an operation. Without `auth` in langgraph.json there is no Access:
// services skip every check and pass no filter, so that path costs nothing.
import type { AuthFilter } from "../storage/auth-filter.js";
import type { JsonObject } from "../storage/records.js";

export type AuthResource = "threads" | "assistants" | "crons" | "store";

/** The normalised user (spec §6.2): what handlers receive and graphs see as langgraph_auth_user. */
export interface AuthUser {
  identity: string;
  permissions: string[];
  display_name: string;
  is_authenticated: boolean;
  [extra: string]: unknown;
}

export interface Access {
  user: AuthUser;
  /**
   * Runs the most specific handler for `resource:action` on `value`, which it may change in
   * place (callers read the changed value back). Resolves to the filter to apply, if any;
   * rejects when the handler refuses.
   */
  authorize(resource: AuthResource, action: string, value: Record<string, unknown>): Promise<AuthFilter | undefined>;
}

export function authorize(
  access: Access | undefined,
  resource: AuthResource,
  action: string,
  value: Record<string, unknown>,
): Promise<AuthFilter | undefined> | undefined {
  return access?.authorize(resource, action, value);
}

/** `{auth}` for a repo filter, or nothing: spreading it leaves an unfiltered query as it was. */
export function authField(filter: AuthFilter | undefined): { auth?: AuthFilter } {
  return filter ? { auth: filter } : {};
}

/**
 * The configurable keys a run carries for the user it acts for, so background runs, crons' runs
 * and webhooks act as that user, and graphs read them (spec §6.6).
 */
export function authConfigurable(user: AuthUser): JsonObject {
  return {
    langgraph_auth_user: JSON.parse(JSON.stringify(user)) as JsonObject,
    langgraph_auth_user_id: user.identity,
    langgraph_auth_permissions: user.permissions,
  };
}
