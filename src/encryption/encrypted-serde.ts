// The checkpointers' serializer with encryption around it: what the inner serializer produces is
// sealed before it is stored, and opened before it is read. The type string stays the inner one:
// the sealed bytes carry their own marker, so rows written before a key was set (no marker) load as
// they are, and the SQLite saver's one type column still fits its plaintext metadata.
// @langchain/langgraph-checkpoint ships no encrypted serializer (1.2.2), unlike Python's EncryptedSerializer.
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { BlobCipher } from "./blob-cipher.js";

export function encryptedSerde(inner: SerializerProtocol, cipher: BlobCipher): SerializerProtocol {
  return {
    async dumpsTyped(data: unknown): Promise<[string, Uint8Array]> {
      const [type, bytes] = await inner.dumpsTyped(data);
      return [type, await cipher.seal(bytes)];
    },
    async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
      if (typeof data === "string") return inner.loadsTyped(type, data);
      return inner.loadsTyped(type, await cipher.open(data));
    },
  };
}
