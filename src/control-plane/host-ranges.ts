// What a host name or address stands for, for the checks on custom_url (never the control plane's
// own origin) and on repo_url (never a loopback, link-local or metadata address). Names are
// compared as hosts compare them: lower-case, without brackets and without a trailing dot
// (`localhost.` is `localhost`).
import { BlockList, isIP } from "node:net";

/** A URL's hostname (or a Host header's host) as a bare, comparable name. */
export function bareHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[")) name = name.slice(1, name.indexOf("]") < 0 ? undefined : name.indexOf("]"));
  else if (name.split(":").length === 2) name = name.slice(0, name.indexOf(":"));
  return name.replace(/\.+$/, "");
}

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addSubnet("0.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");
loopback.addAddress("::", "ipv6");

/** This machine, under any spelling: localhost and its subdomains, 127/8, 0/8, ::1, ::, and their IPv4-mapped forms. */
export function isLoopbackHost(host: string): boolean {
  const name = bareHost(host);
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const family = isIP(name);
  return family !== 0 && loopback.check(name, family === 4 ? "ipv4" : "ipv6");
}

const notRoutable = new BlockList();
for (const [address, prefix] of [
  ["169.254.0.0", 16], // link-local, where clouds serve instance metadata (169.254.169.254)
  ["100.100.100.200", 32], // a cloud's metadata address outside link-local
  ["192.0.0.0", 24], // IETF protocol assignments
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
] as const) {
  notRoutable.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["fd00:ec2::254", 128], // a cloud's IPv6 metadata address
] as const) {
  notRoutable.addSubnet(address, prefix, "ipv6");
}

/** Metadata services reached by name. */
const METADATA_NAMES = ["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"];

/**
 * Why a repository host may not be contacted (loopback, link-local, metadata, multicast or
 * reserved), or undefined. Private ranges (10/8, 192.168/16, fc00::/7) are allowed: a git server
 * on the operator's own network lives there.
 */
export function forbiddenRepoHost(host: string): string | undefined {
  const name = bareHost(host);
  if (isLoopbackHost(name)) return `${name} is this machine (loopback)`;
  if (METADATA_NAMES.includes(name)) return `${name} is a cloud metadata service`;
  const family = isIP(name);
  if (family !== 0 && notRoutable.check(name, family === 4 ? "ipv4" : "ipv6")) return `${name} is a link-local, metadata, multicast or reserved address`;
  return undefined;
}
