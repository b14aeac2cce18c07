// The crons e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeCronsE2E } from "./crons.cases.js";

describeCronsE2E("sqlite", openSqliteStore);
