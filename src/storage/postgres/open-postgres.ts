// The production backend: a pg Pool shared by every repo, migrated on open. Many processes can open
// one database at once; migrations serialise on an advisory lock, everything else on row locks.
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { StartupError } from "../../errors.js";
import type { Logger } from "../../logging.js";
import type { CheckpointStore } from "../checkpoint-ports.js";
import type { Storage } from "../ports.js";
import { postgresAssistants } from "./assistants.js";
import { openPostgresCheckpoints } from "./checkpoints.js";
import { listenedClient, watchConnections } from "./connection-watch.js";
import { postgresCrons } from "./crons.js";
import { checkSchemaName, migratePostgres } from "./migrate.js";
import { postgresRuns } from "./runs.js";
import { postgresStore } from "./store.js";
import { postgresThreads } from "./threads.js";
import { statementNamer } from "./prepared-statements.js";
import { postgresWebhooks } from "./webhooks.js";

export interface PostgresOptions {
  url: string;
  /** Every pooled connection uses this schema (created when missing); otherwise the URL's search_path. */
  schema?: string;
  poolMax?: number;
  /** Statements with parameters become named prepared statements (prepared-statements.ts); default true. */
  preparedStatements?: boolean;
  /** Where losing and regaining the database is logged. */
  log?: Logger;
  /** How checkpoint blobs and writes are serialised (an encrypting one when a key is configured). */
  serde?: SerializerProtocol;
}

/**
 * How long opening a connection may take before it fails (503). pg's default waits forever, which
 * turns a database out of reach (not refusing, just silent) into requests that hang.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The pool's client class, built on one that reports its connection's death. The timeout goes on
 * each client, not on the pool: there it would also fail requests that only wait for a free
 * connection under load, which is no outage. Every statement sent is counted (pg sends one at a
 * time per connection, so one statement is one round trip), the checkpointer's included, since it
 * shares the pool: /metrics shows the total. `name` turns a statement into a named prepared one
 * where it applies (shared by the pool's clients).
 */
function timedCountingClient(Base: typeof pg.Client, sent: { statements: number }, name: (args: unknown[]) => unknown[]): typeof pg.Client {
  return class TimedClient extends Base {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    }

    override query(...args: unknown[]): never {
      sent.statements += 1;
      return (super.query as (...a: unknown[]) => never)(...name(args));
    }
  };
}

export interface PostgresStorage extends Storage {
  readonly backend: "postgres";
  readonly schema: string | undefined;
  /** Names of the migrations applied when this storage was opened. */
  readonly migrated: string[];
  /** Drops the schema given at open, with everything in it, then closes. */
  dropSchemaAndClose(): Promise<void>;
}

export async function openPostgresStorage(options: PostgresOptions): Promise<PostgresStorage> {
  const schema = options.schema === undefined ? undefined : checkSchemaName(options.schema);
  const connection: pg.ClientConfig = { connectionString: options.url, options: schema ? `-c search_path=${schema}` : undefined };
  const sent = { statements: 0 };
  const watch = watchConnections(options.log, describeTarget(options.url));
  const Client = timedCountingClient(listenedClient(pg.Client, watch.lost), sent, options.preparedStatements === false ? (args) => args : statementNamer());
  const pool = new pg.Pool({
    ...connection,
    max: options.poolMax ?? 10,
    Client,
    // Gantry's statements are short, and JIT only ever chose the store's vector scans, where
    // compiling 256 products took longer (about 0.3 s a search) than the interpreter's scoring.
    // pg-pool awaits this before handing a new connection out (a URL's `options` would override ours).
    onConnect: (client) => client.query("SET jit = off"),
  });
  watch.observe(pool);

  let migrated: string[];
  let checkpoints: CheckpointStore;
  try {
    await checkReachable(pool, options.url);
    migrated = await migratePostgres(pool, { schema });
    checkpoints = await openPostgresCheckpoints(pool, { schema: schema ?? (await currentSchema(pool)), connection, Client, serde: options.serde });
  } catch (err) {
    await pool.end();
    throw err;
  }

  let ended: Promise<void> | undefined;
  const close = () => (ended ??= pool.end());

  return {
    backend: "postgres",
    schema,
    migrated,
    assistants: postgresAssistants(pool),
    threads: postgresThreads(pool),
    runs: postgresRuns(pool),
    checkpoints,
    store: postgresStore(pool),
    crons: postgresCrons(pool),
    webhooks: postgresWebhooks(pool),
    statementsSent: () => sent.statements,
    async ping() {
      try {
        await pool.query("SELECT 1");
        return true;
      } catch (err) {
        watch.lost(err);
        return false;
      }
    },
    close,
    async dropSchemaAndClose() {
      if (!schema) throw new Error("dropSchemaAndClose needs the storage to have been opened with a schema");
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await close();
    },
  };
}

async function checkReachable(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StartupError(`Cannot connect to PostgreSQL at ${describeTarget(url)}: ${reason}. Check that it is running and that the database URL is right`);
  }
}

/** The schema the saver's tables go to when none was given: where the search_path puts ours (migrate checked it exists). */
async function currentSchema(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ schema: string }>("SELECT current_schema() AS schema");
  return rows[0]!.schema;
}

/** Host, port and database of a connection URL, without the credentials it may carry. */
function describeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "the configured database URL";
  }
}
