// Tells the log when PostgreSQL goes away and when it is back, once each per outage. The pool opens
// connections on demand and drops dead ones by itself, so recovery needs no action, only noticing:
// a connection that dies (idle, checked out or dedicated), a query that cannot reach the server, or
// a failed health ping means lost; the first connection opened after that means restored.
import type pg from "pg";
import type { Logger } from "../../logging.js";
import { onUnreachable } from "./sql-helpers.js";

export interface ConnectionWatch {
  /** A failure that says the database is unreachable (the health ping's, a client's error event). */
  lost(err: unknown): void;
  /** Watches a pool: its idle connections dying and its queries failing mean lost, its next new connection restored. */
  observe(pool: pg.Pool): void;
}

export function watchConnections(log: Logger | undefined, target: string): ConnectionWatch {
  let down = false;
  const lost = (err: unknown) => {
    if (down) return;
    down = true;
    log?.warn("PostgreSQL connection lost", { target, err: err instanceof Error ? err.message : String(err) });
  };
  return {
    lost,
    observe(pool) {
      // The pool's own listener for idle connections; its clients carry theirs (listenedClient below).
      pool.on("error", lost);
      onUnreachable(pool, lost);
      pool.on("connect", () => {
        if (!down) return;
        down = false;
        log?.info("PostgreSQL connection restored", { target });
      });
    },
  };
}

/**
 * A client class whose every instance has an error listener for its whole life. A pg client emits
 * 'error' when its connection dies, and an 'error' event nobody listens to ends the process. pg-pool
 * listens only while a client sits idle: it removes its listener when the client is checked out
 * (a transaction, a statement under way, the checkpointer between its statements), so a database
 * restart at that moment killed the replica. The statement under way fails on its own, and the
 * pool drops a client whose connection failed when it is released; this listener only reports.
 */
export function listenedClient(Base: typeof pg.Client, report: (err: Error) => void): typeof pg.Client {
  return class ListenedClient extends Base {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on("error", report);
    }
  };
}
