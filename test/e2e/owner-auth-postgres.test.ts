// The private-conversations project on PostgreSQL: a fresh schema, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeOwnerAuthE2E } from "./owner-auth.cases.js";

await describeWithPostgres("the private-conversations project on PostgreSQL", () => {
  describeOwnerAuthE2E("postgres", openPostgresStore);
});
