import { expect, it } from "vitest";
import { bareHost, forbiddenRepoHost, isLoopbackHost } from "./host-ranges.js";

it("compares hosts without port, brackets, case or trailing dot", () => {
  expect(bareHost("LocalHost.:8124")).toBe("localhost");
  expect(bareHost("[::1]:8124")).toBe("::1");
  expect(bareHost("::1")).toBe("::1");
  expect(bareHost("agent.example.com")).toBe("agent.example.com");
});

it("knows every spelling of this machine", () => {
  for (const host of [
    "localhost",
    "localhost.",
    "LOCALHOST",
    "a.localhost",
    "127.0.0.1",
    "127.1.2.3",
    "0.0.0.0",
    "::1",
    "[::1]",
    "::",
    "::ffff:7f00:1",
    "[::ffff:127.0.0.1]",
  ]) {
    expect(isLoopbackHost(host), host).toBe(true);
  }
  for (const host of ["agent.example.com", "10.0.0.1", "localhost.example.com", "::2"]) expect(isLoopbackHost(host), host).toBe(false);
});

it("refuses loopback, link-local and metadata hosts for repositories, and allows private networks", () => {
  for (const host of [
    "169.254.169.254",
    "[fe80::1]",
    "fd00:ec2::254",
    "metadata.google.internal",
    "127.0.0.1",
    "localhost.",
    "224.0.0.1",
    "255.255.255.255",
    "100.100.100.200",
  ]) {
    expect(forbiddenRepoHost(host), host).toBeTypeOf("string");
  }
  for (const host of ["github.com", "10.1.2.3", "192.168.1.10", "fd12::1"]) expect(forbiddenRepoHost(host), host).toBeUndefined();
});
