// The custom auth isolation matrix on PostgreSQL: a fresh schema, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeAuthIsolationE2E } from "./auth-isolation.cases.js";

await describeWithPostgres("custom auth isolation on PostgreSQL", () => {
  describeAuthIsolationE2E("postgres", openPostgresStore);
});
