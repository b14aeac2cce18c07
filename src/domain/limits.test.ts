import { describe, expect, it } from "vitest";
import { checkStorableJson, filterTooLarge, jsonTextTooDeep, MAX_FILTER_ENTRIES, MAX_JSON_DEPTH, unstorableText } from "./limits.js";

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("jsonTextTooDeep", () => {
  it("lets the limit through and refuses one level more", () => {
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it("counts a million levels without overflowing the stack", () => {
    expect(jsonTextTooDeep(nested(1_000_000))).toBe(true);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const text = JSON.stringify({ a: '[[[{{{\\"[[[', b: '"{{{' + "[".repeat(500) });
    expect(jsonTextTooDeep(text, 1)).toBe(false);
  });

  it("counts siblings as the same level", () => {
    expect(jsonTextTooDeep(JSON.stringify(Array.from({ length: 1000 }, () => [{}])), 3)).toBe(false);
  });
});

describe("unstorableText", () => {
  it("refuses U+0000 and unpaired surrogates, and accepts paired ones", () => {
    expect(unstorableText("owner\u0000")).toContain("U+0000");
    expect(unstorableText("x\ud800")).toContain("unpaired");
    expect(unstorableText("\udc00x")).toContain("unpaired");
    expect(unstorableText('\ud83d\ude00 a.b "c" \\ \u202e')).toBeUndefined();
  });
});

describe("checkStorableJson", () => {
  it("names the key that holds an unstorable string, or the key that is one", () => {
    expect(() => checkStorableJson({ metadata: { list: [1, "a\u0000"] } }, "body")).toThrow("Field 'metadata.list[1]' contains U+0000");
    expect(() => checkStorableJson({ metadata: { "owner\u0000": "x" } }, "body")).toThrow(`Field 'metadata' has a key "owner\\u0000" that contains U+0000`);
    expect(() => checkStorableJson("\ud800", "body")).toThrow("The request body contains an unpaired");
  });

  it("accepts ordinary JSON", () => {
    expect(() => checkStorableJson({ a: [1, null, true, { b: "é 😀" }] }, "body")).not.toThrow();
  });
});

describe("filterTooLarge", () => {
  it("counts keys and list elements at every level", () => {
    const flat = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(filterTooLarge(flat(MAX_FILTER_ENTRIES))).toBe(false);
    expect(filterTooLarge(flat(MAX_FILTER_ENTRIES + 1))).toBe(true);
    expect(filterTooLarge({ a: Array.from({ length: MAX_FILTER_ENTRIES }, () => 1) })).toBe(true);
  });
});
