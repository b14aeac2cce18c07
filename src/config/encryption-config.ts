// Encryption at rest from the environment, as the platform names it: LANGGRAPH_AES_KEY encrypts,
// LANGGRAPH_AES_JSON_KEYS names JSON keys to encrypt; GANTRY_AES_PREVIOUS_KEYS (ours: the platform's
// rotation is configured elsewhere) lists retired keys that still decrypt; GANTRY_AES_STORE_CLEAR_KEYS
// (ours) names the top-level keys of store values left clear for search. Key lengths are checked
// when the key ring is built at start-up (encryption/load-encryption.ts).
import { StartupError } from "../errors.js";

export interface EncryptionConfig {
  /** LANGGRAPH_AES_KEY: 16, 24 or 32 bytes. */
  aesKey?: string;
  /** GANTRY_AES_PREVIOUS_KEYS, comma-separated: decrypt only. */
  previousAesKeys: string[];
  /** LANGGRAPH_AES_JSON_KEYS, comma-separated. */
  jsonKeys: string[];
  /** GANTRY_AES_STORE_CLEAR_KEYS, comma-separated: every other key of a store value is sealed. */
  storeClearKeys: string[];
}

/**
 * Keys the platform never encrypts: the server and the auth layer read them (its docs list these).
 */
export const SYSTEM_JSON_KEYS = new Set([
  "langgraph_version",
  "langgraph_api_version",
  "langgraph_plan",
  "langgraph_host",
  "langgraph_api_url",
  "langgraph_request_id",
  "langgraph_auth_user_id",
  "langgraph_auth_permissions",
]);

/** Thread metadata keys Gantry itself queries: a run's graph check, deleting an assistant's threads. */
const READ_JSON_KEYS = new Set(["graph_id", "assistant_id"]);

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function loadEncryptionConfig(env: NodeJS.ProcessEnv): EncryptionConfig {
  const aesKey = env.LANGGRAPH_AES_KEY || undefined;
  const previousAesKeys = list(env.GANTRY_AES_PREVIOUS_KEYS);
  const jsonKeys = list(env.LANGGRAPH_AES_JSON_KEYS);
  const storeClearKeys = list(env.GANTRY_AES_STORE_CLEAR_KEYS);
  if (!aesKey && (previousAesKeys.length > 0 || jsonKeys.length > 0 || storeClearKeys.length > 0)) {
    const set = previousAesKeys.length > 0 ? "GANTRY_AES_PREVIOUS_KEYS" : jsonKeys.length > 0 ? "LANGGRAPH_AES_JSON_KEYS" : "GANTRY_AES_STORE_CLEAR_KEYS";
    throw new StartupError(`${set} is set but LANGGRAPH_AES_KEY is not: set LANGGRAPH_AES_KEY to the key that encrypts (16, 24 or 32 bytes)`);
  }
  const system = jsonKeys.filter((key) => SYSTEM_JSON_KEYS.has(key) || READ_JSON_KEYS.has(key));
  if (system.length > 0) {
    throw new StartupError(`LANGGRAPH_AES_JSON_KEYS names ${system.join(", ")}, which the server reads and cannot encrypt; remove it`);
  }
  const both = storeClearKeys.filter((key) => jsonKeys.includes(key));
  if (both.length > 0) {
    throw new StartupError(`${both.join(", ")} is named in both LANGGRAPH_AES_JSON_KEYS (sealed) and GANTRY_AES_STORE_CLEAR_KEYS (clear); keep it in one`);
  }
  return Object.freeze({ ...(aesKey ? { aesKey } : {}), previousAesKeys, jsonKeys, storeClearKeys });
}
