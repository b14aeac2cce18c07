// The benchmarks that start `gantry serve` or `gantry dev` on PostgreSQL give each run a schema of
// its own on the shared database, made and dropped here.
import pg from "pg";

/** Runs one statement on the database at `url` over a connection of its own. */
export async function onDatabase(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `url` with every connection's search_path set to `schema`. */
export function schemaUrl(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set("options", `-c search_path=${schema}`);
  return withSchema.toString();
}
