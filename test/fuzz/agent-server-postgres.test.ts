// The Agent Server fuzzer (agent-server.cases.ts) on PostgreSQL, beside the SQLite one.
import { openPostgresStore } from "../e2e/backends.js";
import { describeWithPostgres } from "../support/postgres.js";
import { describeAgentServerFuzz } from "./agent-server.cases.js";

await describeWithPostgres("the Agent Server fuzzer on PostgreSQL", () => {
  describeAgentServerFuzz("postgres", openPostgresStore);
});
