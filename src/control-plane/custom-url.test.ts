import { expect, it } from "vitest";
import { hostCandidates, parseCustomUrl } from "./custom-url.js";

it("accepts an http(s) origin and names the host a request must carry", () => {
  expect(parseCustomUrl("https://Agent.Example.com/")).toEqual({ url: "https://agent.example.com", host: "agent.example.com" });
  expect(parseCustomUrl("http://agent.example.com:8080")).toEqual({ url: "http://agent.example.com:8080", host: "agent.example.com:8080" });
  expect(parseCustomUrl("https://agent.example.com:443")).toEqual({ url: "https://agent.example.com", host: "agent.example.com" });
});

it("refuses what is not an origin", () => {
  for (const bad of [
    "agent.example.com",
    "ftp://agent.example.com",
    "https://agent.example.com/x",
    "https://agent.example.com/?a=1",
    "https://u:p@agent.example.com",
  ]) {
    expect(parseCustomUrl(bad), bad).toHaveProperty("error");
  }
});

it("matches a Host header with or without the default port", () => {
  expect(hostCandidates("Agent.Example.com:443")).toEqual(["agent.example.com:443", "agent.example.com"]);
  expect(hostCandidates("agent.example.com:8080")).toEqual(["agent.example.com:8080"]);
  expect(hostCandidates("")).toEqual([]);
});
