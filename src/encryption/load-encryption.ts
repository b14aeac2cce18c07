// Builds what encrypts checkpoints from the configuration: the custom module named by
// langgraph.json `encryption.path` when there is one, else the AES key ring from LANGGRAPH_AES_KEY;
// nothing when neither is set. Whatever seals, both kinds of sealed data (and plaintext) still open,
// so moving from the key to a module, or back, leaves earlier data readable.
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { parseImportString } from "../config/langgraph-config.js";
import type { EncryptionConfig } from "../config/encryption-config.js";
import { StartupError } from "../errors.js";
import { importExport } from "../runtime/load-module.js";
import { type BlobCipher, type CustomEncryption, customBlobCipher, keyRingBlobCipher } from "./blob-cipher.js";
import { encryptedSerde } from "./encrypted-serde.js";
import { configuredKeyRing } from "./configured-key-ring.js";
import { isSealed, type KeyRing } from "./key-ring.js";

export interface LoadedEncryption {
  /** For the checkpointers; undefined when nothing is configured. */
  serde?: SerializerProtocol;
  /** For the JSON fields of storage and the event log's payloads; undefined without LANGGRAPH_AES_KEY. */
  ring?: KeyRing;
  /** For the start-up log: which encryption is on. */
  mode: "off" | "aes" | "custom";
}

export async function loadEncryption(root: string, modulePath: string | undefined, config: EncryptionConfig): Promise<LoadedEncryption> {
  const ring = config.aesKey ? configuredKeyRing(config.aesKey, config.previousAesKeys) : undefined;
  const aes = ring ? keyRingBlobCipher(ring) : undefined;
  const custom = modulePath ? customBlobCipher(await loadCustomEncryption(root, modulePath)) : undefined;
  if (!custom && !aes) return { mode: "off" };
  const cipher: BlobCipher = custom ? { seal: custom.seal, open: (stored) => openEither(stored, custom, aes) } : aes!;
  return {
    serde: encryptedSerde(new JsonPlusSerializer(), cipher),
    ...(ring ? { ring } : {}),
    mode: custom ? "custom" : "aes",
  };
}

async function openEither(stored: Uint8Array, custom: BlobCipher, aes: BlobCipher | undefined): Promise<Uint8Array> {
  if (!isSealed(stored)) return custom.open(stored);
  if (!aes) throw new Error("A stored checkpoint was encrypted with LANGGRAPH_AES_KEY, which is no longer set; set it again to read it");
  return aes.open(stored);
}

async function loadCustomEncryption(root: string, spec: string): Promise<CustomEncryption> {
  const target = parseImportString(root, spec);
  const exported = (await importExport(target, "encryption.path")) as Partial<CustomEncryption> | null;
  if (typeof exported?.encryptBlob !== "function" || typeof exported.decryptBlob !== "function") {
    throw new StartupError(
      `encryption.path: '${target.exportName}' exported from ${target.file} must be an object with encryptBlob(context, data) and decryptBlob(context, data) functions.`,
    );
  }
  const hooks = exported as CustomEncryption;
  return { encryptBlob: hooks.encryptBlob.bind(hooks), decryptBlob: hooks.decryptBlob.bind(hooks) };
}
