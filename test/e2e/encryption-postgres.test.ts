// The encryption e2e cases on PostgreSQL: a fresh schema per suite, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeEncryptionE2E } from "./encryption.cases.js";

await describeWithPostgres("encryption at rest on PostgreSQL", () => {
  describeEncryptionE2E("postgres", openPostgresStore);
});
