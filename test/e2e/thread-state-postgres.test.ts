// The thread state e2e cases on PostgreSQL: a fresh schema, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeThreadStateE2E } from "./thread-state.cases.js";

await describeWithPostgres("thread state end to end on PostgreSQL", () => {
  describeThreadStateE2E("postgres", openPostgresStore);
});
