// AES-GCM with a ring of keys: the current key encrypts, every key in the ring decrypts, and each
// sealed value names the key that sealed it. A sealed value starts with a marker no plaintext the
// savers write can start with (JSON text, or a serializer's bytes), so data written before a key
// was configured is told apart and passes through as it is.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** 0x00 'G' 'E' then the format version: JSON never starts with a NUL byte. */
const MARKER = Buffer.from([0x00, 0x47, 0x45, 0x01]);
const KEY_ID_BYTES = 4;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MARKER.length + KEY_ID_BYTES;
/** The platform's lengths: AES-128, AES-192 or AES-256 from a 16, 24 or 32 byte key. */
const KEY_LENGTHS = new Set([16, 24, 32]);

/** IVs drawn from the CSPRNG a batch at a time: one randomBytes call per IV was half of a seal's cost. */
const IV_BATCH = 1024;

export class KeyRingError extends Error {}

let ivPool = Buffer.alloc(0);
let ivOffset = 0;
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_BATCH * IV_BYTES);
    ivOffset = 0;
  }
  ivOffset += IV_BYTES;
  return ivPool.subarray(ivOffset - IV_BYTES, ivOffset);
}

export interface KeyRing {
  /** The id (8 hex digits) of the key that encrypts. */
  readonly currentKeyId: string;
  seal(plaintext: Uint8Array): Buffer;
  /** The plaintext of a sealed value; throws KeyRingError if no key of the ring opens it. */
  open(sealed: Uint8Array): Buffer;
}

export function isSealed(data: Uint8Array): boolean {
  return data.length >= HEADER_BYTES + IV_BYTES + TAG_BYTES && Buffer.from(data.buffer, data.byteOffset, MARKER.length).equals(MARKER);
}

/** A key's id: derived from the key, so the same key always has the same id and the id reveals nothing of it. */
function keyIdOf(key: Buffer): Buffer {
  return createHash("sha256").update("gantry aes key id\0").update(key).digest().subarray(0, KEY_ID_BYTES);
}

/**
 * `current` encrypts; `previous` only decrypt. Keys are the UTF-8 bytes of the given strings, as the
 * platform reads LANGGRAPH_AES_KEY. `name` says where a key came from, for the error a bad one raises.
 */
export function keyRing(current: { key: string; name: string }, previous: { key: string; name: string }[] = []): KeyRing {
  const keys = new Map<string, { key: Buffer; algorithm: string }>();
  let currentId = "";
  for (const [index, given] of [current, ...previous].entries()) {
    const key = Buffer.from(given.key, "utf8");
    if (!KEY_LENGTHS.has(key.length)) {
      throw new KeyRingError(
        `${given.name} is ${key.length} bytes long; an AES key must be exactly 16, 24 or 32 bytes (AES-128, -192, -256). Generate one with \`openssl rand -hex 16\` (32 characters) and set it again.`,
      );
    }
    const id = keyIdOf(key).toString("hex");
    if (index === 0) currentId = id;
    if (!keys.has(id)) keys.set(id, { key, algorithm: `aes-${key.length * 8}-gcm` });
  }
  const encrypting = keys.get(currentId)!;
  const currentHeader = Buffer.concat([MARKER, Buffer.from(currentId, "hex")]);

  return {
    currentKeyId: currentId,
    seal(plaintext) {
      const iv = nextIv();
      const cipher = createCipheriv(encrypting.algorithm, encrypting.key, iv) as import("node:crypto").CipherGCM;
      // The header is authenticated too: a value cannot be made to name another key.
      cipher.setAAD(currentHeader);
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([currentHeader, iv, cipher.getAuthTag(), body]);
    },
    open(sealed) {
      const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      if (!isSealed(data)) throw new KeyRingError("The value is not sealed by Gantry's encryption");
      const id = data.subarray(MARKER.length, HEADER_BYTES).toString("hex");
      const entry = keys.get(id);
      if (!entry) {
        throw new KeyRingError(`A stored value was encrypted with key ${id}, which is not configured; add that key to GANTRY_AES_PREVIOUS_KEYS to read it`);
      }
      const iv = data.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES);
      const tag = data.subarray(HEADER_BYTES + IV_BYTES, HEADER_BYTES + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv(entry.algorithm, entry.key, iv) as import("node:crypto").DecipherGCM;
      decipher.setAAD(data.subarray(0, HEADER_BYTES));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(data.subarray(HEADER_BYTES + IV_BYTES + TAG_BYTES)), decipher.final()]);
      } catch {
        throw new KeyRingError(`A stored value sealed with key ${id} failed authentication: it was altered or is corrupt`);
      }
    },
  };
}
