// The runs e2e cases on PostgreSQL: each suite gets a fresh schema, reached through DATABASE_URL
// alone. Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeRunCancelE2E } from "./runs-cancel.cases.js";
import { describeRunControlE2E } from "./runs-control.cases.js";
import { describeRunCrashE2E } from "./runs-crash.cases.js";
import { describeRunDisconnectE2E } from "./runs-disconnect.cases.js";
import { describeRunStreamsE2E } from "./runs-stream.cases.js";
import { describeRunsE2E } from "./runs.cases.js";

await describeWithPostgres("runs end to end on PostgreSQL", () => {
  describeRunsE2E("postgres", openPostgresStore);
  describeRunStreamsE2E("postgres", openPostgresStore);
  describeRunControlE2E("postgres", openPostgresStore);
  describeRunCancelE2E("postgres", openPostgresStore);
  describeRunCrashE2E("postgres", openPostgresStore);
  describeRunDisconnectE2E("postgres", openPostgresStore);
});
