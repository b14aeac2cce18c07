import { describe, expect, it } from "vitest";
import { headerFilter } from "./configurable-headers.js";

const SENT = {
  "X-User-Id": "u-1",
  "x-request-id": "r-1",
  "user-agent": "sdk/1",
  "x-api-key": "key",
  "x-tenant-id": "t-1",
  "x-service-key": "s-1",
  authorization: "Bearer secret",
  cookie: "a=b",
  accept: "application/json",
};

describe("headerFilter", () => {
  it("passes every x-* header and user-agent without http.configurable_headers, as the official servers do, never the secret ones", () => {
    expect(headerFilter(undefined)(SENT)).toEqual({ "x-user-id": "u-1", "x-request-id": "r-1", "user-agent": "sdk/1" });
  });

  it("lets the excludes alone narrow that default, and exclude * turn it off", () => {
    expect(headerFilter({ excludes: ["x-request-*"] })(SENT)).toEqual({ "x-user-id": "u-1", "user-agent": "sdk/1" });
    expect(headerFilter({ exclude: ["*"] })(SENT)).toEqual({});
  });

  it("replaces the default with the includes, and keeps the secret headers out even when included by name", () => {
    expect(headerFilter({ includes: ["accept", "authorization", "x-api-key"] })(SENT)).toEqual({ accept: "application/json" });
    expect(headerFilter({ include: ["*"], excludes: ["user-agent"] })(new Headers(SENT))).toEqual({
      "x-user-id": "u-1",
      "x-request-id": "r-1",
      accept: "application/json",
    });
  });
});
