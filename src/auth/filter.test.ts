import { describe, expect, it } from "vitest";
import { parseAuthFilter } from "./filter.js";

describe("parseAuthFilter", () => {
  it("reads plain scalars and $eq as equality, and $contains as array containment", () => {
    const returned = { owner: "ann", level: 3, vip: true, gone: null, team: { $eq: "red" }, tags: { $contains: "x" }, all: { $contains: ["a", "b"] } };
    expect(parseAuthFilter(returned, "threads:read")).toEqual([
      { key: "owner", op: "eq", value: "ann" },
      { key: "level", op: "eq", value: 3 },
      { key: "vip", op: "eq", value: true },
      { key: "gone", op: "eq", value: null },
      { key: "team", op: "eq", value: "red" },
      { key: "tags", op: "contains", value: "x" },
      { key: "all", op: "contains", value: ["a", "b"] },
    ]);
  });

  it("refuses what it cannot apply, naming the event and the key", () => {
    expect(() => parseAuthFilter({ owner: { $ne: "ann" } }, "threads:read")).toThrow("The auth handler for threads:read returned an unusable filter: 'owner'");
    expect(() => parseAuthFilter({ owner: ["ann"] }, "threads:read")).toThrow(/'owner'/);
    expect(() => parseAuthFilter({ owner: { $eq: { nested: 1 } } }, "crons:search")).toThrow(/crons:search.*'owner'/);
    expect(() => parseAuthFilter({ tags: { $contains: [{ a: 1 }] } }, "store:get")).toThrow(/'tags'/);
  });
});
