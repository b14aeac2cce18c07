// Turns what the user's `authenticate` returned into the user every handler and graph sees
// (spec §6.2): a string is an identity; an object needs `identity` and may carry anything else.
import type { AuthUser } from "../domain/access.js";

export function normaliseUser(returned: unknown): AuthUser {
  if (typeof returned === "string" && returned !== "") {
    return { identity: returned, permissions: [], display_name: returned, is_authenticated: true };
  }
  if (typeof returned !== "object" || returned === null) throw new Error("authenticate returned neither an identity string nor a user object");
  const user = returned as Record<string, unknown>;
  if (typeof user.identity !== "string" || user.identity === "") throw new Error("authenticate returned a user without a string 'identity'");
  const permissions = Array.isArray(user.permissions) ? user.permissions.filter((p): p is string => typeof p === "string") : [];
  return {
    ...user,
    identity: user.identity,
    permissions,
    display_name: typeof user.display_name === "string" ? user.display_name : user.identity,
    is_authenticated: typeof user.is_authenticated === "boolean" ? user.is_authenticated : true,
  };
}
