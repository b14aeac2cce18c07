// Control-plane API keys: only SHA-256 hashes are kept (keys are 32 random bytes, so a slow hash adds
// nothing), and a presented key is compared with every stored hash in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";

const PREFIX = "gantry_";

export function newApiKey(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

export interface ApiKeyCheck {
  /** True when at least one key is configured. */
  configured: boolean;
  matches(presented: string): boolean;
}

export function apiKeyCheck(hashes: Buffer[]): ApiKeyCheck {
  return {
    configured: hashes.length > 0,
    matches(presented) {
      const candidate = hashApiKey(presented);
      let found = false;
      // No early exit: the time taken does not depend on which stored key matched.
      for (const hash of hashes) found = timingSafeEqual(hash, candidate) || found;
      return found;
    },
  };
}

/** The keys file holds one `sha256:<hex>` per line; blank lines and `#` comments are ignored. */
export function readKeysFile(file: string): Buffer[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line, i) => {
      const match = /^sha256:([0-9a-f]{64})$/.exec(line);
      if (!match) throw new Error(`${file}, line ${i + 1}: expected 'sha256:<64 hex digits>'`);
      return Buffer.from(match[1]!, "hex");
    });
}

export function appendKeyHash(file: string, key: string, label: string): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `# ${label} ${new Date().toISOString()}\nsha256:${hashApiKey(key).toString("hex")}\n`, { mode: 0o600 });
}
