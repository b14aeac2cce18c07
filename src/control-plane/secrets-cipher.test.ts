import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { secretsCipher } from "./secrets-cipher.js";

describe("secretsCipher", () => {
  const cipher = secretsCipher(randomBytes(32));
  const secrets = [{ name: "OPENAI_API_KEY", value: "sk-very-secret" }];

  it("round-trips secrets and never stores the value in clear", () => {
    const sealed = cipher.seal(secrets, "rev-1");
    expect(sealed).not.toContain("sk-very-secret");
    expect(cipher.open(sealed, "rev-1")).toEqual(secrets);
  });

  it("uses a fresh nonce per write", () => {
    expect(cipher.seal(secrets, "rev-1")).not.toBe(cipher.seal(secrets, "rev-1"));
  });

  it("refuses a ciphertext moved to another revision, or read with another key", () => {
    const sealed = cipher.seal(secrets, "rev-1");
    expect(() => cipher.open(sealed, "rev-2")).toThrow(/cannot be decrypted/);
    expect(() => secretsCipher(randomBytes(32)).open(sealed, "rev-1")).toThrow(/cannot be decrypted/);
  });
});
