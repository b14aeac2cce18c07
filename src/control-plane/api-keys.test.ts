import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiKeyCheck, appendKeyHash, hashApiKey, newApiKey, readKeysFile, revokeKey } from "./api-keys.js";

const TENANT = "0190a1c1-0000-7000-8000-0000000000aa";

describe("API keys", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gantry-keys-"));
    file = join(dir, "api-keys");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts only configured keys, and is open only in dev mode with none", () => {
    const key = newApiKey();
    const check = apiKeyCheck([hashApiKey("other"), hashApiKey(key)], undefined, false);
    expect(check.open()).toBe(false);
    expect(check.match(key)).toEqual({});
    expect(check.match(key + "x")).toBeUndefined();
    expect(apiKeyCheck([], undefined, true).open()).toBe(true);
    expect(apiKeyCheck([], undefined, false).open()).toBe(false);
  });

  it("keeps only hashes in the keys file, with the name, date and tenant", () => {
    const key = newApiKey();
    const stored = appendKeyHash(file, key, "ci", TENANT);
    expect(readFileSync(file, "utf8")).not.toContain(key);
    expect(readKeysFile(file)).toEqual([{ ...stored, hash: hashApiKey(key) }]);
    expect(stored).toMatchObject({ id: hashApiKey(key).toString("hex").slice(0, 12), name: "ci", tenant: TENANT });
    expect(apiKeyCheck([], file, false).match(key)).toEqual({ tenant: TENANT });
  });

  it("sees keys created and revoked in the file from the next check, and never opens up when the last goes", () => {
    const check = apiKeyCheck([], file, false);
    const first = newApiKey();
    const second = newApiKey();
    const a = appendKeyHash(file, first, "a");
    expect(check.match(first)).toEqual({});
    appendKeyHash(file, second, "b");
    expect(check.match(second)).toEqual({});
    expect(revokeKey(file, a.id)?.name).toBe("a");
    expect(check.match(first)).toBeUndefined();
    expect(check.match(second)).toEqual({});
    expect(readKeysFile(file).map((k) => k.name)).toEqual(["b"]);
    expect(revokeKey(file, readKeysFile(file)[0]!.id)).toBeDefined();
    expect(check.match(second)).toBeUndefined();
    expect(check.open()).toBe(false);
    expect(revokeKey(file, "nothex")).toBeUndefined();
  });
});
