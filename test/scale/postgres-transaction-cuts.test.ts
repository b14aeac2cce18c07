// The transaction helper against a real PostgreSQL behind a TCP proxy: a connection cut before
// COMMIT is destroyed and the transaction runs once more, landing once; a statement that fails on
// a healthy connection is not retried; and nothing ends the test process, although the cut client
// is checked out when its connection dies.
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listenedClient } from "../../src/storage/postgres/connection-watch.js";
import { transaction } from "../../src/storage/postgres/sql-helpers.js";
import { describeWithPostgres, freshSchemaName, onTestDatabase, TEST_DATABASE_URL } from "../support/postgres.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

await describeWithPostgres("transaction() when its connection is cut", () => {
  const schema = freshSchemaName();
  let proxy: TcpProxy;
  let pool: pg.Pool;
  const reported: Error[] = [];

  beforeAll(async () => {
    await onTestDatabase(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id text PRIMARY KEY)`);
    const target = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy({ target: { host: target.hostname, port: Number(target.port || 5432) } });
    const url = new URL(TEST_DATABASE_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    pool = new pg.Pool({
      connectionString: url.toString(),
      options: `-c search_path=${schema}`,
      max: 2,
      Client: listenedClient(pg.Client, (err) => reported.push(err)),
    });
    pool.on("error", () => {});
  });

  afterAll(async () => {
    await pool?.end();
    await proxy?.close();
    await onTestDatabase(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it("runs a transaction cut before COMMIT once more, and its writes land once", async () => {
    let attempts = 0;
    const result = await transaction(pool, async (client) => {
      attempts += 1;
      await client.query("INSERT INTO items (id) VALUES ('a')");
      if (attempts === 1) proxy.cutAll("reset");
      await client.query("INSERT INTO items (id) VALUES ('b')");
      return "done";
    });
    expect(result).toBe("done");
    expect(attempts).toBe(2);
    expect(reported.length).toBeGreaterThan(0);
    expect((await pool.query("SELECT id FROM items ORDER BY id")).rows).toEqual([{ id: "a" }, { id: "b" }]);
  });

  it("does not retry a statement that failed on a healthy connection", async () => {
    let attempts = 0;
    await expect(
      transaction(pool, async (client) => {
        attempts += 1;
        await client.query("INSERT INTO items (id) VALUES ('a')");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(attempts).toBe(1);
  });

  it("fails, without retrying, when the connection dies on every attempt", async () => {
    let attempts = 0;
    await expect(
      transaction(pool, async (client) => {
        attempts += 1;
        proxy.cutAll();
        await client.query("SELECT 1");
      }),
    ).rejects.toMatchObject({ kind: "unavailable" });
    expect(attempts).toBe(2);
    expect((await pool.query("SELECT count(*)::int AS n FROM items")).rows).toEqual([{ n: 2 }]);
  });
});
