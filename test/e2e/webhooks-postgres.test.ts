// The webhook e2e cases on PostgreSQL: a fresh schema per suite, reached through DATABASE_URL alone.
// Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeWebhooksE2E } from "./webhooks.cases.js";

await describeWithPostgres("webhooks end to end on PostgreSQL", () => describeWebhooksE2E("postgres", openPostgresStore));
