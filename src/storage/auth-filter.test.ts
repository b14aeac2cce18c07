import { describe, expect, it } from "vitest";
import { authContainment, matchesAuthFilter, type AuthFilter } from "./auth-filter.js";

const filter: AuthFilter = [
  { key: "owner", op: "eq", value: "ann" },
  { key: "tags", op: "contains", value: ["x", "y"] },
  { key: "team", op: "contains", value: "red" },
];

describe("auth filters", () => {
  it("become one JSON containment document", () => {
    expect(authContainment(filter)).toEqual({ owner: "ann", tags: ["x", "y"], team: ["red"] });
  });

  it("match a document the way the containment does", () => {
    expect(matchesAuthFilter({ owner: "ann", tags: ["y", "x", "z"], team: ["red", "blue"] }, filter)).toBe(true);
    expect(matchesAuthFilter({ owner: "bob", tags: ["x", "y"], team: ["red"] }, filter)).toBe(false);
    expect(matchesAuthFilter({ owner: "ann", tags: ["x"], team: ["red"] }, filter)).toBe(false);
    expect(matchesAuthFilter({ owner: "ann", tags: ["x", "y"], team: "red" }, filter)).toBe(false);
    expect(matchesAuthFilter({}, [])).toBe(true);
  });
});
