import { describe, expect, it } from "vitest";
import { isSealed, KeyRingError, keyRing } from "./key-ring.js";

const KEY_16 = "0123456789abcdef";
const KEY_24 = "0123456789abcdef01234567";
const KEY_32 = "0123456789abcdef0123456789abcdef";
const text = (s: string) => new TextEncoder().encode(s);

describe("keyRing", () => {
  it("opens what it sealed, for each AES key length", () => {
    for (const key of [KEY_16, KEY_24, KEY_32]) {
      const ring = keyRing({ key, name: "K" });
      const sealed = ring.seal(text('{"secret":"x"}'));
      expect(isSealed(sealed)).toBe(true);
      expect(sealed.includes(Buffer.from("secret"))).toBe(false);
      expect(ring.open(sealed).toString()).toBe('{"secret":"x"}');
    }
  });

  it("seals the same plaintext differently each time (a fresh IV)", () => {
    const ring = keyRing({ key: KEY_16, name: "K" });
    expect(ring.seal(text("same")).equals(ring.seal(text("same")))).toBe(false);
  });

  it("refuses a key of another length, naming where it came from", () => {
    expect(() => keyRing({ key: "short", name: "LANGGRAPH_AES_KEY" })).toThrow(
      /^LANGGRAPH_AES_KEY is 5 bytes long; an AES key must be exactly 16, 24 or 32 bytes/,
    );
    expect(() => keyRing({ key: KEY_16, name: "A" }, [{ key: "x".repeat(17), name: "B" }])).toThrow(/^B is 17 bytes long/);
  });

  it("opens with a retired key what that key sealed, and seals with the current one", () => {
    const old = keyRing({ key: KEY_16, name: "old" });
    const rotated = keyRing({ key: KEY_32, name: "new" }, [{ key: KEY_16, name: "old" }]);
    expect(rotated.open(old.seal(text("before"))).toString()).toBe("before");
    const after = rotated.seal(text("after"));
    expect(after.subarray(4, 8).toString("hex")).toBe(rotated.currentKeyId);
    expect(rotated.currentKeyId).not.toBe(old.currentKeyId);
    expect(() => old.open(after)).toThrow(KeyRingError);
  });

  it("names the missing key when a value was sealed by a key not in the ring", () => {
    const sealed = keyRing({ key: KEY_16, name: "A" }).seal(text("v"));
    expect(() => keyRing({ key: KEY_24, name: "B" }).open(sealed)).toThrow(
      /encrypted with key [0-9a-f]{8}, which is not configured; add that key to GANTRY_AES_PREVIOUS_KEYS/,
    );
  });

  it("rejects a value altered in its body or its header", () => {
    const ring = keyRing({ key: KEY_16, name: "K" }, [{ key: KEY_24, name: "K2" }]);
    const sealed = ring.seal(text("intact"));
    const body = Buffer.from(sealed);
    body[body.length - 1]! ^= 1;
    expect(() => ring.open(body)).toThrow(/failed authentication/);
    const tag = Buffer.from(sealed);
    tag[20]! ^= 1;
    expect(() => ring.open(tag)).toThrow(/failed authentication/);
  });

  it("tells plaintext from sealed data by the marker", () => {
    expect(isSealed(text('{"a":1}'))).toBe(false);
    expect(isSealed(new Uint8Array(0))).toBe(false);
  });
});
