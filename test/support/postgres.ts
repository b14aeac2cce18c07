// Where tests find PostgreSQL, and what a suite does when it is not there: on a laptop it is skipped
// with the reason in its name; in CI it fails, because a silently skipped suite would pass.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, it } from "vitest";

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const HOW_TO_START =
  "start it (pg_ctlcluster --skip-systemctl-redirect <version> main start, or " +
  "docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:16) " +
  "or point DATABASE_URL at a running server";

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
  } catch {
    return false;
  }
  try {
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

/** A schema name no other test file uses; drop it when done. */
export function freshSchemaName(): string {
  return `gantry_test_${randomBytes(6).toString("hex")}`;
}

/** `describe` when PostgreSQL answers; otherwise a visibly skipped suite, or a failing one in CI. */
export async function describeWithPostgres(name: string, body: () => void): Promise<void> {
  if (await postgresAvailable()) {
    describe(name, body);
    return;
  }
  const reason = `PostgreSQL is not reachable at ${withoutPassword(TEST_DATABASE_URL)}`;
  if (process.env.CI === "true") {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reason}; CI needs it: ${HOW_TO_START}`);
      });
      it("runs against PostgreSQL", () => {});
    });
    return;
  }
  describe.skip(`${name} (skipped: ${reason}; to run it, ${HOW_TO_START})`, body);
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "DATABASE_URL";
  }
}

/** Runs one statement on the test database on a connection of its own (creating or dropping a schema). */
export async function onTestDatabase(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
