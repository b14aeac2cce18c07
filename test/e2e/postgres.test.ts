// The SDK flows of the SQLite e2e files, on PostgreSQL: each suite gets a fresh schema, reached
// through DATABASE_URL alone. Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { describeAssistantsE2E } from "./assistants.cases.js";
import { openPostgresStore } from "./backends.js";
import { describePersistenceE2E } from "./persistence.cases.js";
import { describeThreadsE2E } from "./threads.cases.js";

await describeWithPostgres("end to end on PostgreSQL", () => {
  describeAssistantsE2E("postgres", openPostgresStore);
  describeThreadsE2E("postgres", openPostgresStore);
  describePersistenceE2E("postgres", openPostgresStore);
});
