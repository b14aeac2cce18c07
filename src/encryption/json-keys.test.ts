import { describe, expect, it } from "vitest";
import { isSealedJson, jsonKeyCipher, openJson, sealJson } from "./json-keys.js";
import { keyRing } from "./key-ring.js";

const ring = keyRing({ key: "0123456789abcdef", name: "K" });

describe("sealJson", () => {
  it("seals any JSON value into one string that opens to it", () => {
    for (const value of [{ messages: ["secret"] }, ["a", 1], "text", 0, false, null]) {
      const sealed = sealJson(ring, value);
      expect(isSealedJson(sealed)).toBe(true);
      expect(sealed).not.toContain("secret");
      expect(openJson(ring, sealed)).toEqual(value);
    }
  });

  it("passes through what it did not seal", () => {
    expect(openJson(ring, { a: 1 })).toEqual({ a: 1 });
    expect(openJson(ring, "plain text")).toBe("plain text");
    expect(openJson(ring, null)).toBeNull();
  });
});

describe("jsonKeyCipher", () => {
  it("seals the named keys, keeping every key of the object", () => {
    const cipher = jsonKeyCipher(ring, ["api_key"]);
    const sealed = cipher.seal({ api_key: "k-1", team: "red" });
    expect(Object.keys(sealed)).toEqual(["api_key", "team"]);
    expect(sealed.team).toBe("red");
    expect(isSealedJson(sealed.api_key)).toBe(true);
    expect(cipher.open(sealed)).toEqual({ api_key: "k-1", team: "red" });
  });

  it("seals every key but those excepted, and opens what another cipher of the ring sealed", () => {
    const store = jsonKeyCipher(ring, { except: ["kind"] });
    const sealed = store.seal({ body: { nested: "secret" }, kind: "note" });
    expect(JSON.stringify(sealed)).not.toContain("secret");
    expect(sealed.kind).toBe("note");
    expect(jsonKeyCipher(ring, []).open(sealed)).toEqual({ body: { nested: "secret" }, kind: "note" });
  });
});
