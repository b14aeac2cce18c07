import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { Json } from "../records.js";
import { jsonContains } from "./json-filter.js";

const db = new Database(":memory:");
afterAll(() => db.close());

function contains(doc: Json, filter: Json): boolean {
  const { sql, params } = jsonContains("doc", filter);
  const row = db.prepare(`SELECT ${sql} AS hit FROM (SELECT ? AS doc)`).get(...params, JSON.stringify(doc)) as { hit: number };
  return row.hit === 1;
}

describe("jsonContains on SQLite", () => {
  it("matches top-level scalars by type and value", () => {
    expect(contains({ a: "x", n: 1, b: true, z: null }, { a: "x" })).toBe(true);
    expect(contains({ a: "x" }, { a: "y" })).toBe(false);
    expect(contains({ n: 1 }, { n: 1 })).toBe(true);
    expect(contains({ n: 1.5 }, { n: 1.5 })).toBe(true);
    expect(contains({ n: "1" }, { n: 1 })).toBe(false);
    expect(contains({ b: true }, { b: true })).toBe(true);
    expect(contains({ b: 1 }, { b: true })).toBe(false);
    expect(contains({ z: null }, { z: null })).toBe(true);
    expect(contains({}, { z: null })).toBe(false);
  });

  it("matches nested objects recursively and treats the empty filter as match-all", () => {
    expect(contains({ a: { b: { c: 1, d: 2 } } }, { a: { b: { c: 1 } } })).toBe(true);
    expect(contains({ a: { b: { c: 1 } } }, { a: { b: { c: 2 } } })).toBe(false);
    expect(contains({ a: 1 }, {})).toBe(true);
  });

  it("matches arrays when every filter element is in the stored array", () => {
    expect(contains({ tags: ["a", "b", "c"] }, { tags: ["c", "a"] })).toBe(true);
    expect(contains({ tags: ["a"] }, { tags: ["a", "z"] })).toBe(false);
    expect(contains({ tags: [{ id: 1, x: 2 }, { id: 3 }] }, { tags: [{ id: 1 }] })).toBe(true);
    expect(contains({ tags: [[1, 2]] }, { tags: [[2]] })).toBe(true);
    expect(contains({ tags: "a" }, { tags: ["a"] })).toBe(false);
  });

  it("keeps keys with dots, quotes and spaces as one member", () => {
    expect(contains({ "a.b": 1, a: { b: 2 } }, { "a.b": 1 })).toBe(true);
    expect(contains({ 'say "hi"': "ok" }, { 'say "hi"': "ok" })).toBe(true);
    expect(contains({ "with space": "v" }, { "with space": "v" })).toBe(true);
  });
});
