// Deployment secrets at rest: AES-256-GCM under the master key, a fresh 12-byte nonce per write,
// and the owning revision's id as associated data so a ciphertext cannot be moved to another row.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { GantryError } from "../errors.js";

export interface Secret {
  name: string;
  value: string;
}

export interface SecretsCipher {
  seal(secrets: Secret[], revisionId: string): string;
  open(sealed: string, revisionId: string): Secret[];
}

const VERSION = "v1";

export function secretsCipher(masterKey: Buffer): SecretsCipher {
  if (masterKey.length !== 32) throw new Error("the secrets master key must be 32 bytes");
  return {
    seal(secrets, revisionId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
      cipher.setAAD(Buffer.from(revisionId));
      const body = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final()]);
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
    },
    open(sealed, revisionId) {
      const [version, iv, tag, body] = sealed.split(":");
      if (version !== VERSION || !iv || !tag || body === undefined) throw new GantryError("invalid", "Stored secrets are in an unknown format");
      try {
        const decipher = createDecipheriv("aes-256-gcm", masterKey, Buffer.from(iv, "base64"));
        decipher.setAAD(Buffer.from(revisionId));
        decipher.setAuthTag(Buffer.from(tag, "base64"));
        const text = Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
        return JSON.parse(text) as Secret[];
      } catch {
        // The message never includes key material or plaintext.
        throw new Error(`Secrets of revision ${revisionId} cannot be decrypted: GANTRY_SECRETS_KEY is not the key they were written with`);
      }
    },
  };
}
