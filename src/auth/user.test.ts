import { describe, expect, it } from "vitest";
import { normaliseUser } from "./user.js";

describe("normaliseUser", () => {
  it("makes an identity string a user with no permissions", () => {
    expect(normaliseUser("ann")).toEqual({ identity: "ann", permissions: [], display_name: "ann", is_authenticated: true });
  });

  it("fills in the defaults of a user object and keeps its extra fields", () => {
    expect(normaliseUser({ identity: "ann", permissions: ["read", 3], org: "acme" })).toEqual({
      identity: "ann",
      permissions: ["read"],
      display_name: "ann",
      is_authenticated: true,
      org: "acme",
    });
    expect(normaliseUser({ identity: "ann", display_name: "Ann", is_authenticated: false })).toMatchObject({ display_name: "Ann", is_authenticated: false });
  });

  it("refuses anything without an identity", () => {
    expect(() => normaliseUser({ permissions: [] })).toThrow(/identity/);
    expect(() => normaliseUser("")).toThrow();
    expect(() => normaliseUser(null)).toThrow();
  });
});
