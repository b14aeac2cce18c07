// The drop-in project's cases on PostgreSQL: a fresh schema, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeDropInAppE2E } from "./dropin-app.cases.js";

await describeWithPostgres("the drop-in project end to end on PostgreSQL", () => {
  describeDropInAppE2E("postgres", openPostgresStore);
});
