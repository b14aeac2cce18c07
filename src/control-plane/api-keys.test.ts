import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apiKeyCheck, appendKeyHash, hashApiKey, newApiKey, readKeysFile } from "./api-keys.js";

describe("API keys", () => {
  it("accepts only configured keys", () => {
    const key = newApiKey();
    const check = apiKeyCheck([hashApiKey("other"), hashApiKey(key)]);
    expect(check.configured).toBe(true);
    expect(check.matches(key)).toBe(true);
    expect(check.matches(key + "x")).toBe(false);
    expect(apiKeyCheck([]).configured).toBe(false);
  });

  it("keeps only hashes in the keys file", () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-keys-"));
    try {
      const file = join(dir, "api-keys");
      const key = newApiKey();
      appendKeyHash(file, key, "ci");
      expect(readFileSync(file, "utf8")).not.toContain(key);
      expect(apiKeyCheck(readKeysFile(file)).matches(key)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
