import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { describeWithPostgres, TEST_DATABASE_URL } from "../../../test/support/postgres.js";
import { statementNamer } from "./prepared-statements.js";

// Names are per connection, as in a pool (one namer per pool): each case gets its own connection.
await describeWithPostgres("named prepared statements", () => {
  let client: pg.Client;
  afterEach(() => client.end());

  async function connect(limit?: number) {
    client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const name = statementNamer(limit);
    return (...args: unknown[]) => (client.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...name(args));
  }
  const prepared = async () =>
    (await client.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements ORDER BY statement")).rows.map((r) => r.statement);

  it("prepares a parameterised text once on the connection and reuses it, answering as before", async () => {
    const send = await connect();
    const first = await send("SELECT $1::int + 1 AS n", [1]);
    const second = await send("SELECT $1::int + 1 AS n", [41]);
    expect([first.rows[0].n, second.rows[0].n]).toEqual([2, 42]);
    expect(await prepared()).toEqual(["SELECT $1::int + 1 AS n"]);
  });

  it("leaves texts without values, and texts past the bound, unnamed", async () => {
    const send = await connect(2);
    await send("SELECT 1");
    for (const n of [1, 2, 3]) await send(`SELECT $1::int * ${n}`, [n]);
    expect(await prepared()).toEqual(["SELECT $1::int * 1", "SELECT $1::int * 2"]);
  });

  it("keeps a name usable after the statement failed while executing", async () => {
    const send = await connect();
    await expect(send("SELECT 1 / $1::int AS q", [0])).rejects.toThrow(/division by zero/);
    expect((await send("SELECT 1 / $1::int AS q", [1])).rows[0].q).toBe(1);
  });
});
