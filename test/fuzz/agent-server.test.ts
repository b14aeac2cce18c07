// The Agent Server fuzzer (agent-server.cases.ts) on the embedded SQLite file and on PostgreSQL.
import { openPostgresStore, openSqliteStore } from "../e2e/backends.js";
import { describeWithPostgres } from "../support/postgres.js";
import { describeAgentServerFuzz } from "./agent-server.cases.js";

describeAgentServerFuzz("sqlite", openSqliteStore);

await describeWithPostgres("the Agent Server fuzzer on PostgreSQL", () => {
  describeAgentServerFuzz("postgres", openPostgresStore);
});
