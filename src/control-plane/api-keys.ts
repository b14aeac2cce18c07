// Control-plane API keys: only SHA-256 hashes are kept (keys are 32 random bytes, so a slow hash adds
// nothing), and a presented key is compared with every stored hash in constant time.
//
// The keys file holds, per key, a `# <name> <created>` comment and a `sha256:<hex>` line,
// optionally followed by ` tenant=<uuid>`: such a key acts only in that tenant. A key's id is the
// start of its hash (it says nothing of the key). The running control plane reads the file again
// whenever it changes, so `keys create` and `keys revoke` take effect on the next request.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const PREFIX = "gantry_";
const ID_LENGTH = 12;

export function newApiKey(): string {
  return PREFIX + randomBytes(32).toString("base64url");
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

export interface StoredKey {
  /** The first 12 hex digits of the hash: what `keys list` shows and `keys revoke` takes. */
  id: string;
  hash: Buffer;
  name: string;
  created: string | null;
  /** Set: the key acts only in this tenant. */
  tenant?: string;
}

/** What a matching key may do. */
export interface KeyGrant {
  tenant?: string;
}

export interface ApiKeyCheck {
  /** True when no key is configured and the control plane runs with --dev: every call passes. */
  open(): boolean;
  /** The key's grant, or undefined when no configured key is this one. */
  match(presented: string): KeyGrant | undefined;
}

const KEY_LINE = /^sha256:([0-9a-f]{64})(?: tenant=([0-9a-f-]{36}))?$/;

export function readKeysFile(file: string): StoredKey[] {
  if (!existsSync(file)) return [];
  const keys: StoredKey[] = [];
  let comment: string | undefined;
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.trim();
      if (!line) return;
      if (line.startsWith("#")) {
        comment = line.slice(1).trim();
        return;
      }
      const match = KEY_LINE.exec(line);
      if (!match) throw new Error(`${file}, line ${i + 1}: expected 'sha256:<64 hex digits>' and optionally ' tenant=<uuid>'`);
      const created = comment?.match(/ (\d{4}-\d\d-\d\dT[\d:.]+Z)$/)?.[1] ?? null;
      const name = (created ? comment!.slice(0, -created.length - 1) : (comment ?? "")).trim() || "key";
      keys.push({ id: match[1]!.slice(0, ID_LENGTH), hash: Buffer.from(match[1]!, "hex"), name, created, ...(match[2] ? { tenant: match[2] } : {}) });
      comment = undefined;
    });
  return keys;
}

export function appendKeyHash(file: string, key: string, label: string, tenant?: string): StoredKey {
  mkdirSync(dirname(file), { recursive: true });
  const hash = hashApiKey(key);
  const created = new Date().toISOString();
  appendFileSync(file, `# ${label} ${created}\nsha256:${hash.toString("hex")}${tenant ? ` tenant=${tenant}` : ""}\n`, { mode: 0o600 });
  return { id: hash.toString("hex").slice(0, ID_LENGTH), hash, name: label, created, ...(tenant ? { tenant } : {}) };
}

/** Removes the key whose id (or a longer start of its hash) is `id`; false when none or several match. */
export function revokeKey(file: string, id: string): StoredKey | undefined {
  const wanted = id.trim().toLowerCase();
  if (!/^[0-9a-f]{12,64}$/.test(wanted)) return undefined;
  const keys = readKeysFile(file);
  const matching = keys.filter((k) => k.hash.toString("hex").startsWith(wanted));
  if (matching.length !== 1) return undefined;
  const kept = keys.filter((k) => k !== matching[0]);
  const text = kept
    .map((k) => `# ${k.name}${k.created ? ` ${k.created}` : ""}\nsha256:${k.hash.toString("hex")}${k.tenant ? ` tenant=${k.tenant}` : ""}\n`)
    .join("");
  // Written beside and renamed over: a control plane reading it meanwhile sees the old file or the new, never half.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
  return matching[0];
}

/**
 * The keys of GANTRY_API_KEYS (hashed) and those of the keys file, read again when the file
 * changes. `devOpen`: with --dev, no key configured means every call passes.
 */
export function apiKeyCheck(envHashes: Buffer[], file: string | undefined, devOpen: boolean): ApiKeyCheck {
  let seen = "";
  let fileKeys: StoredKey[] = [];
  const current = (): { hash: Buffer; tenant?: string }[] => {
    if (file) {
      const stamp = stampOf(file);
      if (stamp !== seen) {
        // A file being rewritten that cannot be read keeps the keys last read; the next request tries again.
        try {
          fileKeys = readKeysFile(file);
          seen = stamp;
        } catch {}
      }
    }
    return [...envHashes.map((hash) => ({ hash })), ...fileKeys];
  };
  return {
    open: () => devOpen && current().length === 0,
    match(presented) {
      const candidate = hashApiKey(presented);
      let found: KeyGrant | undefined;
      // No early exit: the time taken does not depend on which stored key matched.
      for (const key of current()) {
        if (timingSafeEqual(key.hash, candidate) && !found) found = key.tenant ? { tenant: key.tenant } : {};
      }
      return found;
    },
  };
}

function stampOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return "absent";
  }
}
