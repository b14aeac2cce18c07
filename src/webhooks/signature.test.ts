import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhook } from "./signature.js";

describe("webhook signatures", () => {
  const body = '{"run_id":"r1","status":"success"}';
  const now = 1_700_000_000;

  it("is an HMAC-SHA256 of id.timestamp.body, base64, prefixed with v1", () => {
    const expected = createHmac("sha256", "s3cret").update(`d1.${now}.${body}`).digest("base64");
    expect(signWebhook("s3cret", "d1", now, body)).toBe(`v1,${expected}`);
  });

  it("uses the decoded bytes of a whsec_ secret", () => {
    const key = Buffer.from("0123456789abcdef0123456789abcdef");
    const expected = createHmac("sha256", key).update(`d1.${now}.${body}`).digest("base64");
    expect(signWebhook(`whsec_${key.toString("base64")}`, "d1", now, body)).toBe(`v1,${expected}`);
  });

  it("verifies a genuine signature and refuses a changed body, another secret or a stale timestamp", () => {
    const headers = { id: "d1", timestamp: String(now), signature: signWebhook("s3cret", "d1", now, body) };
    expect(verifyWebhook("s3cret", headers, body, { nowSeconds: now })).toBe(true);
    expect(verifyWebhook("s3cret", headers, body.replace("success", "error"), { nowSeconds: now })).toBe(false);
    expect(verifyWebhook("other", headers, body, { nowSeconds: now })).toBe(false);
    expect(verifyWebhook("s3cret", headers, body, { nowSeconds: now + 301 })).toBe(false);
    expect(verifyWebhook("s3cret", { ...headers, signature: `v1,bogus ${headers.signature}` }, body, { nowSeconds: now })).toBe(true);
  });
});
