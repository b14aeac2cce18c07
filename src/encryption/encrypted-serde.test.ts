import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { customBlobCipher, keyRingBlobCipher } from "./blob-cipher.js";
import { encryptedSerde, sealedEnvelope } from "./encrypted-serde.js";
import { keyRing } from "./key-ring.js";

const ring = keyRing({ key: "0123456789abcdef", name: "K" });

describe("encryptedSerde", () => {
  it("round-trips JSON and bytes, keeping the inner type and sealing the data", async () => {
    const serde = encryptedSerde(new JsonPlusSerializer(), keyRingBlobCipher(ring));
    const [type, data] = await serde.dumpsTyped({ messages: ["secret"] });
    expect(type).toBe("json");
    expect(Buffer.from(data).includes(Buffer.from("secret"))).toBe(false);
    expect(await serde.loadsTyped(type, data)).toEqual({ messages: ["secret"] });
    const [bytesType, bytes] = await serde.dumpsTyped(new Uint8Array([1, 2, 3]));
    expect(bytesType).toBe("bytes");
    expect(Array.from((await serde.loadsTyped(bytesType, bytes)) as Uint8Array)).toEqual([1, 2, 3]);
  });

  it("stores text, and loads it back when a saver hands it over as a string", async () => {
    const serde = encryptedSerde(new JsonPlusSerializer(), keyRingBlobCipher(ring));
    const [type, data] = await serde.dumpsTyped({ n: 1 });
    const text = Buffer.from(data).toString("utf8");
    expect(text).toMatch(/^gantry:sealed:v1:[A-Za-z0-9+/=]+$/);
    expect(await serde.loadsTyped(type, text)).toEqual({ n: 1 });
  });

  it("loads plaintext written before encryption was on", async () => {
    const plain = new JsonPlusSerializer();
    const serde = encryptedSerde(plain, keyRingBlobCipher(ring));
    const [type, data] = await plain.dumpsTyped({ a: 1 });
    expect(await serde.loadsTyped(type, data)).toEqual({ a: 1 });
    expect(await serde.loadsTyped("json", '{"b":2}')).toEqual({ b: 2 });
  });

  it("passes a custom module's hooks the checkpoint context and stores their output behind a marker", async () => {
    const seen: string[] = [];
    const cipher = customBlobCipher({
      encryptBlob: (context, data) => (seen.push(`${context.model}:encrypt`), Buffer.from(data).reverse()),
      decryptBlob: (context, data) => (seen.push(`${context.model}:decrypt`), Buffer.from(data).reverse()),
    });
    const serde = encryptedSerde(new JsonPlusSerializer(), cipher);
    const [type, data] = await serde.dumpsTyped("hello");
    expect(sealedEnvelope(data)!.subarray(0, 4)).toEqual(Buffer.from([0x00, 0x47, 0x43, 0x01]));
    expect(await serde.loadsTyped(type, data)).toBe("hello");
    expect(seen).toEqual(["checkpoint:encrypt", "checkpoint:decrypt"]);
  });
});
