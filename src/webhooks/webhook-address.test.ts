import { describe, expect, it } from "vitest";
import { addressRefusal, classifyAddress } from "./webhook-address.js";

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["2001:4860:4860::8888", "public"],
    ["127.0.0.1", "loopback"],
    ["127.9.9.9", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fd12::1", "private"],
    ["::ffff:10.0.0.1", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
  ])("classifies %s as %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe("addressRefusal", () => {
  it("refuses loopback by default and allows it when disable_loopback is false", () => {
    expect(addressRefusal("127.0.0.1", {})).toMatch(/disable_loopback/);
    expect(addressRefusal("127.0.0.1", { disable_loopback: false })).toBeNull();
  });

  it("refuses private and link-local addresses unless allow_private_networks is set", () => {
    expect(addressRefusal("10.0.0.5", { disable_loopback: false })).toMatch(/private address; set webhooks.url.allow_private_networks/);
    expect(addressRefusal("fe80::1", {})).toMatch(/link-local/);
    expect(addressRefusal("10.0.0.5", { allow_private_networks: true })).toBeNull();
  });

  it("always refuses cloud metadata addresses", () => {
    expect(addressRefusal("169.254.169.254", { disable_loopback: false, allow_private_networks: true })).toMatch(/metadata/);
  });

  it("lets public addresses through", () => {
    expect(addressRefusal("93.184.216.34", {})).toBeNull();
  });
});
