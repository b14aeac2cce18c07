// The reference server's own e2e checks (reference-parity.cases.ts) on PostgreSQL: a fresh schema,
// reached through DATABASE_URL alone. Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeReferenceParity } from "./reference-parity.cases.js";

await describeWithPostgres("reference parity on PostgreSQL", () => {
  describeReferenceParity("postgres", openPostgresStore);
});
