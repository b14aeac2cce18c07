// Runs the user's authorization handlers (spec §6.2-6.3): the most specific one registered for an
// event (`resource:action`, then `resource`, then `*:action`, then `*`) and only that one. Its
// answer decides: nothing or true allows, false refuses (403), an object filters, and an
// HTTPException it throws answers with its own status.
import type { Access, AuthResource, AuthUser } from "../domain/access.js";
import { forbidden } from "../errors.js";
import type { AuthFilter } from "../storage/auth-filter.js";
import { parseAuthFilter } from "./filter.js";
import { asAuthRejection } from "./http-exception.js";
import type { AuthHooks, AuthorizeHook } from "./load-auth.js";

export function handlerFor(hooks: AuthHooks, resource: string, action: string): AuthorizeHook | undefined {
  const { handlers } = hooks;
  return handlers.get(`${resource}:${action}`) ?? handlers.get(resource) ?? handlers.get(`*:${action}`) ?? handlers.get("*");
}

export function accessFor(hooks: AuthHooks, user: AuthUser): Access {
  return {
    user,
    async authorize(resource: AuthResource, action: string, value: Record<string, unknown>): Promise<AuthFilter | undefined> {
      const handler = handlerFor(hooks, resource, action);
      if (!handler) return undefined;
      const event = `${resource}:${action}`;
      let result: unknown;
      try {
        result = await handler({ event, resource, action, value, user, permissions: user.permissions });
      } catch (err) {
        throw asAuthRejection(err) ?? err;
      }
      if (result === undefined || result === null || result === true) return undefined;
      if (result === false) throw forbidden(`Forbidden: ${event} was refused for user ${user.identity}`);
      if (typeof result === "object" && !Array.isArray(result)) {
        const filter = parseAuthFilter(result as Record<string, unknown>, event);
        return filter.length > 0 ? filter : undefined;
      }
      throw new Error(`The auth handler for ${event} returned ${typeof result}; expected nothing, a boolean or a filter object`);
    },
  };
}
