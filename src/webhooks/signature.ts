// Signing follows the Standard Webhooks scheme, so receivers can verify with its libraries or a few
// lines of their own: HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", base64, sent as
// "webhook-signature: v1,<signature>". A secret "whsec_<base64>" is used as its decoded bytes (as
// those libraries do); any other secret as its UTF-8 bytes.
import { createHmac, timingSafeEqual } from "node:crypto";

export function signatureKey(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice("whsec_".length), "base64") : Buffer.from(secret, "utf8");
}

export function signWebhook(secret: string, deliveryId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", signatureKey(secret)).update(`${deliveryId}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** A receiver's check: the signature matches and the timestamp is within `toleranceSeconds` of now. */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const timestamp = Number(headers.timestamp);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!Number.isInteger(timestamp) || Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, timestamp, body));
  // The header may carry several space-separated signatures (key rotation); one match is enough.
  return headers.signature.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
