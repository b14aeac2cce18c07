import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { describe, expect, it } from "vitest";
import { AuthRejection, GantryError } from "../errors.js";
import { accessFor } from "./authorize.js";
import type { AuthHooks, AuthorizeHook } from "./load-auth.js";

const user = { identity: "ann", permissions: ["read"], display_name: "Ann", is_authenticated: true };

/** The hooks of a real SDK Auth object, as loadAuth reads them. */
function hooksOf(auth: Auth): AuthHooks {
  const cache = (auth as unknown as { "~handlerCache": { callbacks?: Record<string, AuthorizeHook> } })["~handlerCache"];
  return { handlers: new Map(Object.entries(cache.callbacks ?? {})) };
}

describe("accessFor", () => {
  it("runs only the most specific handler: resource:action, resource, *:action, then *", async () => {
    const ran: string[] = [];
    const mark = (name: string) => () => void ran.push(name);
    const access = accessFor(
      hooksOf(new Auth().on("*", mark("*")).on("*:read", mark("*:read")).on("threads", mark("threads")).on("threads:create", mark("threads:create"))),
      user,
    );
    await access.authorize("threads", "create", {});
    await access.authorize("threads", "read", {});
    await access.authorize("crons", "read", {});
    await access.authorize("crons", "delete", {});
    expect(ran).toEqual(["threads:create", "threads", "*:read", "*"]);
  });

  it("gives the handler the event, the value to change, the user and the permissions", async () => {
    const value: Record<string, unknown> = { metadata: {} };
    let seen: unknown;
    await accessFor(
      hooksOf(
        new Auth().on("threads:create", (args) => {
          seen = { event: args.event, resource: args.resource, action: args.action, user: args.user, permissions: args.permissions };
          (args.value as { metadata: Record<string, unknown> }).metadata.owner = args.user.identity;
        }),
      ),
      user,
    ).authorize("threads", "create", value);
    expect(seen).toEqual({ event: "threads:create", resource: "threads", action: "create", user, permissions: ["read"] });
    expect(value).toEqual({ metadata: { owner: "ann" } });
  });

  it("allows on nothing or true, refuses on false, filters on an object", async () => {
    const answer = (result: unknown) => accessFor(hooksOf(new Auth().on("*", () => result as never)), user).authorize("threads", "read", {});
    await expect(answer(undefined)).resolves.toBeUndefined();
    await expect(answer(true)).resolves.toBeUndefined();
    await expect(answer({})).resolves.toBeUndefined();
    await expect(answer({ owner: "ann" })).resolves.toEqual([{ key: "owner", op: "eq", value: "ann" }]);
    await expect(answer(false)).rejects.toSatisfy((err) => err instanceof GantryError && err.kind === "forbidden");
    await expect(answer("yes")).rejects.toThrow(/returned string/);
  });

  it("turns an HTTPException into a rejection with its status and headers, and lets other errors through", async () => {
    const throwing = (err: Error) =>
      accessFor(
        hooksOf(
          new Auth().on("*", () => {
            throw err;
          }),
        ),
        user,
      ).authorize("store", "get", {});
    const rejection = await throwing(new HTTPException(402, { message: "Pay first", headers: { "x-price": "3" } })).catch((e: unknown) => e);
    expect(rejection).toBeInstanceOf(AuthRejection);
    expect(rejection).toMatchObject({ status: 402, message: "Pay first", headers: { "x-price": "3" } });
    const bug = new TypeError("oops");
    await expect(throwing(bug)).rejects.toBe(bug);
  });

  it("allows everything when no handler matches", async () => {
    await expect(accessFor(hooksOf(new Auth().on("threads", () => false)), user).authorize("store", "put", {})).resolves.toBeUndefined();
  });
});
