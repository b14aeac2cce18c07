import { describe, expect, it } from "vitest";
import { GantryError } from "../errors.js";
import { parseStoreFilter } from "./store-filter.js";

describe("parseStoreFilter", () => {
  it("keeps plain values, arrays and nested objects as one containment pattern", () => {
    expect(parseStoreFilter({ a: 1, tags: ["x"], meta: { lang: "en", deep: { n: null } } })).toEqual({
      contains: { a: 1, tags: ["x"], meta: { lang: "en", deep: { n: null } } },
      comparisons: [],
    });
  });

  it("folds $eq into the containment pattern and turns the other operators into comparisons on their path", () => {
    expect(parseStoreFilter({ color: { $eq: "red" }, user: { age: { $gte: 18, $lt: 65 }, city: { $ne: "Rome" } } })).toEqual({
      contains: { color: "red" },
      comparisons: [
        { path: ["user", "age"], op: "$gte", operand: 18 },
        { path: ["user", "age"], op: "$lt", operand: 65 },
        { path: ["user", "city"], op: "$ne", operand: "Rome" },
      ],
    });
  });

  it("adds no containment for objects made only of operators, but keeps an empty object given as such", () => {
    expect(parseStoreFilter({ a: { b: { $ne: 1 } }, c: {} }).contains).toEqual({ c: {} });
  });

  it.each([
    [{ n: { $in: [1] } }, "Field 'filter.n' uses unknown operator '$in'"],
    [{ n: { $gt: 1, other: 2 } }, "Field 'filter.n' mixes operators ($gt) with plain keys"],
    [{ n: { $gt: true } }, "Field 'filter.n.$gt' must be a number or a string"],
    [{ a: { b: { $eq: [1] } } }, "Field 'filter.a.b.$eq' must be a string, number, boolean or null"],
  ])("refuses %j as invalid, naming the field", (filter, message) => {
    let error: unknown;
    try {
      parseStoreFilter(filter);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(GantryError);
    expect(error).toMatchObject({ kind: "invalid" });
    expect((error as Error).message).toContain(message);
  });
});
