// The hostile inputs of issue #23 on the embedded SQLite file and on PostgreSQL: the same limits on both.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore, openSqliteStore } from "./backends.js";
import { describeHostileInputE2E } from "./hostile-input.cases.js";

describeHostileInputE2E("sqlite", openSqliteStore);

await describeWithPostgres("hostile input on PostgreSQL", () => {
  describeHostileInputE2E("postgres", openPostgresStore);
});
