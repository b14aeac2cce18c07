// Which IP addresses a webhook may reach (spec §5 "SSRF IP checks"). The same rule runs on literal
// addresses at run creation and on every resolved address at delivery, so a name that resolves into
// a private network is caught however it is spelled.
import { BlockList, isIP } from "node:net";
import type { WebhookUrlPolicy } from "../config/webhook-config.js";

export type AddressClass = "public" | "loopback" | "private" | "link-local" | "metadata" | "unspecified";

function blockList(ranges: Array<[string, number, "ipv4" | "ipv6"]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

// Cloud instance-metadata endpoints: AWS/GCP/Azure/OpenStack, AWS over IPv6, Alibaba.
const METADATA = blockList([
  ["169.254.169.254", 32, "ipv4"],
  ["fd00:ec2::254", 128, "ipv6"],
  ["100.100.100.200", 32, "ipv4"],
]);
const LOOPBACK = blockList([
  ["127.0.0.0", 8, "ipv4"],
  ["::1", 128, "ipv6"],
]);
const UNSPECIFIED = blockList([
  ["0.0.0.0", 8, "ipv4"],
  ["::", 128, "ipv6"],
]);
const LINK_LOCAL = blockList([
  ["169.254.0.0", 16, "ipv4"],
  ["fe80::", 10, "ipv6"],
]);
const PRIVATE = blockList([
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["fc00::", 7, "ipv6"],
]);

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) throw new Error(`'${address}' is not an IP address`);
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) reaches the IPv4 host: judge that one.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  const ip = mapped ?? address;
  const type = isIP(ip) === 4 ? "ipv4" : "ipv6";
  if (METADATA.check(ip, type)) return "metadata";
  if (LOOPBACK.check(ip, type)) return "loopback";
  if (UNSPECIFIED.check(ip, type)) return "unspecified";
  if (LINK_LOCAL.check(ip, type)) return "link-local";
  if (PRIVATE.check(ip, type)) return "private";
  return "public";
}

/** Why the policy refuses this address, or null when a webhook may reach it. */
export function addressRefusal(address: string, policy: WebhookUrlPolicy): string | null {
  const kind = classifyAddress(address);
  switch (kind) {
    case "public":
      return null;
    case "metadata":
      return `${address} is a cloud metadata service address, which webhooks may never reach`;
    case "loopback":
    case "unspecified":
      return (policy.disable_loopback ?? true) ? `${address} is a loopback address; loopback webhooks are disabled (webhooks.url.disable_loopback)` : null;
    case "link-local":
    case "private":
      return policy.allow_private_networks ? null : `${address} is a ${kind} address; set webhooks.url.allow_private_networks to allow it`;
  }
}
