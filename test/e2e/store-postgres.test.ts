// The store e2e cases on PostgreSQL: a fresh schema per suite, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeStoreE2E } from "./store.cases.js";

await describeWithPostgres("store end to end on PostgreSQL", () => {
  describeStoreE2E("postgres", openPostgresStore);
});
