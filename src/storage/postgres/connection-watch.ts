// Tells the log when PostgreSQL goes away and when it is back, once each per outage. The pool opens
// connections on demand and drops dead ones by itself, so recovery needs no action, only noticing:
// an idle connection that dies, a query that cannot reach the server, or a failed health ping
// means lost; the first connection opened after that means restored.
import type pg from "pg";
import type { Logger } from "../../logging.js";
import { onUnreachable } from "./sql-helpers.js";

export interface ConnectionWatch {
  /** A failure that says the database is unreachable (the health ping's). */
  lost(err: unknown): void;
}

export function watchConnections(pool: pg.Pool, log: Logger | undefined, target: string): ConnectionWatch {
  let down = false;
  const lost = (err: unknown) => {
    if (down) return;
    down = true;
    log?.warn("PostgreSQL connection lost", { target, err: err instanceof Error ? err.message : String(err) });
  };
  // Without a listener, an idle connection dying (a database restart) would end the process. The
  // pool has already dropped it; the next query opens a fresh one.
  pool.on("error", lost);
  onUnreachable(pool, lost);
  pool.on("connect", () => {
    if (!down) return;
    down = false;
    log?.info("PostgreSQL connection restored", { target });
  });
  return { lost };
}
