// The crons e2e cases on PostgreSQL: a fresh schema per suite, reached through DATABASE_URL alone,
// with two processes on it where schedulers race. Skipped with the reason when PostgreSQL is down;
// failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeCronsE2E } from "./crons.cases.js";

await describeWithPostgres("crons end to end on PostgreSQL", () => {
  describeCronsE2E("postgres", openPostgresStore);
});
