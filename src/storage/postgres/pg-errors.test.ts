import { createServer } from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isUnavailable } from "../../errors.js";
import { isUnreachable, translatePgError } from "./pg-errors.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

/** A port nothing listens on: taken, then let go. */
function closedPort(): Promise<number> {
  return new Promise((resolvePort) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

describe("isUnreachable", () => {
  it("is true for a server that refuses or ends connections, and for lost sockets", async () => {
    const client = new pg.Client({ host: "127.0.0.1", port: await closedPort(), user: "postgres" });
    const refused = await client.connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isUnreachable(refused)).toBe(true);
    expect(isUnreachable(withCode("terminating connection due to administrator command", "57P01"))).toBe(true);
    expect(isUnreachable(withCode("the database system is starting up", "57P03"))).toBe(true);
    expect(isUnreachable(withCode("connection failure", "08006"))).toBe(true);
    expect(isUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isUnreachable(new Error("timeout expired"))).toBe(true);
  });

  it("is false for errors in the statement or the data", () => {
    expect(isUnreachable(withCode("duplicate key value violates unique constraint", "23505"))).toBe(false);
    expect(isUnreachable(withCode('relation "runs" does not exist', "42P01"))).toBe(false);
    expect(isUnreachable(new Error("something else"))).toBe(false);
  });
});

describe("translatePgError", () => {
  it("turns an outage into an unavailable error naming PostgreSQL, and leaves other errors alone", () => {
    const outage = translatePgError(withCode("terminating connection due to administrator command", "57P01"));
    expect(isUnavailable(outage)).toBe(true);
    expect((outage as Error).message).toMatch(/^PostgreSQL cannot be reached \(terminating connection/);
    const bug = withCode('relation "runs" does not exist', "42P01");
    expect(translatePgError(bug)).toBe(bug);
  });
});
