// What encrypts a blob (a checkpoint, a channel value, a pending write): the built-in AES key ring,
// or the hooks of a custom encryption module. Either way the stored bytes start with a marker
// saying which sealed them, so a blob without one is plaintext written before encryption was on.
import { isSealed, type KeyRing } from "./key-ring.js";

/** Passed to a custom module's hooks: what is being encrypted (the platform's EncryptionContext). */
export interface EncryptionContext {
  model: string;
  field: string | null;
  metadata: Record<string, unknown>;
}

export interface BlobCipher {
  seal(plaintext: Uint8Array): Promise<Uint8Array>;
  /** The plaintext of `stored`, or `stored` itself when it was never sealed. */
  open(stored: Uint8Array): Promise<Uint8Array>;
}

/** The hooks a custom encryption module exports (langgraph.json `encryption.path`). */
export interface CustomEncryption {
  encryptBlob(context: EncryptionContext, data: Uint8Array): Promise<Uint8Array> | Uint8Array;
  decryptBlob(context: EncryptionContext, data: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

export function keyRingBlobCipher(ring: KeyRing): BlobCipher {
  return {
    seal: async (plaintext) => ring.seal(plaintext),
    open: async (stored) => (isSealed(stored) ? ring.open(stored) : stored),
  };
}

/** 0x00 'G' 'C' then the version: the module's output follows, as it gave it. */
const CUSTOM_MARKER = Buffer.from([0x00, 0x47, 0x43, 0x01]);
const CHECKPOINT_CONTEXT: EncryptionContext = Object.freeze({ model: "checkpoint", field: null, metadata: Object.freeze({}) }) as EncryptionContext;

export function customBlobCipher(hooks: CustomEncryption): BlobCipher {
  return {
    async seal(plaintext) {
      const sealed = await hooks.encryptBlob({ ...CHECKPOINT_CONTEXT, metadata: {} }, plaintext);
      return Buffer.concat([CUSTOM_MARKER, sealed]);
    },
    async open(stored) {
      const data = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      if (!data.subarray(0, CUSTOM_MARKER.length).equals(CUSTOM_MARKER)) return stored;
      return hooks.decryptBlob({ ...CHECKPOINT_CONTEXT, metadata: {} }, data.subarray(CUSTOM_MARKER.length));
    },
  };
}
