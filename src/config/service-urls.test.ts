import { describe, expect, it } from "vitest";
import { databaseUrlFrom, redisUrlFrom } from "./service-urls.js";

const PG = "postgres://db.example:5432/app";

describe("the database and Redis variables", () => {
  it("reads Gantry's names first, then the official servers' (the _CUSTOM ones before DATABASE_URI/REDIS_URI)", () => {
    expect(databaseUrlFrom({ DATABASE_URI: PG })).toEqual({ url: PG, variable: "DATABASE_URI" });
    expect(databaseUrlFrom({ DATABASE_URI: "postgres://provisioned/db", POSTGRES_URI_CUSTOM: PG })).toEqual({ url: PG, variable: "POSTGRES_URI_CUSTOM" });
    expect(databaseUrlFrom({ DATABASE_URL: PG, POSTGRES_URI_CUSTOM: "postgres://other/db" })?.variable).toBe("DATABASE_URL");
    expect(redisUrlFrom({ REDIS_URI: "redis://a:6379", REDIS_URI_CUSTOM: "redis://b:6379" })).toEqual({ url: "redis://b:6379", variable: "REDIS_URI_CUSTOM" });
    expect(redisUrlFrom({ REDIS_URL: "redis://c:6379", REDIS_URI: "redis://a:6379" })?.variable).toBe("REDIS_URL");
    expect(databaseUrlFrom({})).toBeUndefined();
  });

  it("names a malformed URL, the variable it came from, the likely typo and the form to write", () => {
    expect(() => databaseUrlFrom({ DATABASE_URL: "postgress:/oops" })).toThrow(
      "DATABASE_URL 'postgress:/oops' starts with 'postgress:', not 'postgres://' or 'postgresql://' (a typo for 'postgres:'?); write it as postgres://user:password@host:5432/database",
    );
    expect(() => databaseUrlFrom({ DATABASE_URI: "postgres:/oops" })).toThrow(/^DATABASE_URI 'postgres:\/oops' names no host/);
    expect(() => databaseUrlFrom({ DATABASE_URL: "db.example:5432" })).toThrow(/starts with 'db.example:'/);
    expect(() => redisUrlFrom({ REDIS_URI_CUSTOM: "localhost:6379" })).toThrow(
      /^REDIS_URI_CUSTOM 'localhost:6379' starts with 'localhost:'.*redis:\/\/host:6379\/0$/,
    );
  });

  it("never shows a password", () => {
    expect(() => databaseUrlFrom({ DATABASE_URL: "postgress://me:s3cret@db/app" })).toThrow(/me:\*\*\*@db/);
  });

  it("accepts a socket directory as PostgreSQL's host", () => {
    expect(databaseUrlFrom({ DATABASE_URL: "postgres:///app?host=/var/run/postgresql" })?.variable).toBe("DATABASE_URL");
  });

  it("refuses REDIS_CLUSTER=true with what to do instead, and a value that is not a boolean", () => {
    expect(() => redisUrlFrom({ REDIS_CLUSTER: "True", REDIS_URI: "redis://a:6379" })).toThrow(/does not support Redis Cluster: point REDIS_URL/);
    expect(() => redisUrlFrom({ REDIS_CLUSTER: "yes" })).toThrow("REDIS_CLUSTER must be true or false, got 'yes'");
    expect(redisUrlFrom({ REDIS_CLUSTER: "False", REDIS_URI: "redis://a:6379" })?.variable).toBe("REDIS_URI");
  });
});
