// The checkpointers' serializer with encryption around it: what the inner serializer produces is
// sealed before it is stored, and opened before it is read. The type string stays the inner one:
// the stored value carries its own marker, so rows written before a key was set (no marker) load as
// they are, and the SQLite saver's one type column still fits its plaintext metadata.
// Stored as text (a prefix, then base64): the SQLite saver reads pending writes through
// CAST(value AS TEXT) inside json_object, which would mangle raw ciphertext bytes.
// @langchain/langgraph-checkpoint ships no encrypted serializer (1.2.2), unlike Python's EncryptedSerializer.
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { BlobCipher } from "./blob-cipher.js";

/** JSON text never starts with a letter other than t, f, n; the serializer's raw bytes are not checked. */
export const SEALED_PREFIX = "gantry:sealed:v1:";
const PREFIX_BYTES = Buffer.from(SEALED_PREFIX);

/** The sealed envelope inside a stored value, or undefined when the value was stored in plaintext. */
export function sealedEnvelope(stored: Uint8Array | string): Buffer | undefined {
  if (typeof stored === "string") return stored.startsWith(SEALED_PREFIX) ? Buffer.from(stored.slice(SEALED_PREFIX.length), "base64") : undefined;
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  return bytes.subarray(0, PREFIX_BYTES.length).equals(PREFIX_BYTES)
    ? Buffer.from(bytes.subarray(PREFIX_BYTES.length).toString("latin1"), "base64")
    : undefined;
}

export function encryptedSerde(inner: SerializerProtocol, cipher: BlobCipher): SerializerProtocol {
  return {
    async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
      const [type, bytes] = await inner.dumpsTyped(data);
      const sealed = Buffer.from(await cipher.seal(bytes));
      return [type, Buffer.from(SEALED_PREFIX + sealed.toString("base64"), "latin1")];
    },
    async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
      const envelope = sealedEnvelope(data);
      return inner.loadsTyped(type, envelope ? await cipher.open(envelope) : data);
    },
  };
}
