import { describe, expect, it } from "vitest";
import { checkWebhookTarget, checkWebhookUrl } from "./webhook-url.js";

const resolvesTo =
  (...addresses: string[]) =>
  async () =>
    addresses;
const unresolvable = async (): Promise<string[]> => {
  throw new Error("ENOTFOUND");
};

describe("checkWebhookUrl", () => {
  it("applies require_https, allowed_domains, allowed_ports and max_url_length", () => {
    expect(() => checkWebhookUrl("http://hooks.example.com/x", { require_https: true })).toThrow(/must use https/);
    expect(() => checkWebhookUrl("https://evil.com/x", { allowed_domains: ["*.example.com"] })).toThrow(/allowed_domains/);
    expect(() => checkWebhookUrl("https://example.com/x", { allowed_domains: ["*.example.com"] })).toThrow(/allowed_domains/);
    expect(checkWebhookUrl("https://a.example.com/x", { allowed_domains: ["*.example.com"] })?.hostname).toBe("a.example.com");
    expect(() => checkWebhookUrl("https://example.com:8443/x", { allowed_ports: [443] })).toThrow(/port 8443/);
    expect(() => checkWebhookUrl("https://example.com/" + "a".repeat(50), { max_url_length: 40 })).toThrow(/max_url_length/);
  });

  it("refuses loopback names and addresses and relative URLs unless disable_loopback is false", () => {
    for (const url of ["http://localhost/x", "http://127.0.0.1/x", "http://[::1]/x", "/relative"]) {
      expect(() => checkWebhookUrl(url, {}), url).toThrow(/loopback/);
      expect(() => checkWebhookUrl(url, { disable_loopback: false }), url).not.toThrow();
    }
  });

  it("refuses localhost written with the root's trailing dot, in any case, like every other spelling", () => {
    for (const url of ["http://localhost.:8080/x", "http://LOCALHOST./x", "http://LocalHost../x", "http://api.localhost./x", "http://ip6-localhost./x"]) {
      expect(() => checkWebhookUrl(url, {}), url).toThrow(/loopback/);
      expect(() => checkWebhookUrl(url, { disable_loopback: false }), url).not.toThrow();
    }
    expect(checkWebhookUrl("https://hooks.example.com./x", {})?.hostname).toBe("hooks.example.com.");
  });
});

describe("checkWebhookTarget", () => {
  it("refuses a name that resolves into a private network", async () => {
    await expect(checkWebhookTarget("https://internal.example.com/x", {}, resolvesTo("93.184.216.34", "10.0.0.7"))).rejects.toThrow(
      /internal.example.com resolves to 10.0.0.7 is a private address/,
    );
  });

  it("accepts a public name, and a name that does not resolve now", async () => {
    await expect(checkWebhookTarget("https://hooks.example.com/x", {}, resolvesTo("93.184.216.34"))).resolves.toBeUndefined();
    await expect(checkWebhookTarget("https://hooks.example.com/x", {}, unresolvable)).resolves.toBeUndefined();
  });
});
