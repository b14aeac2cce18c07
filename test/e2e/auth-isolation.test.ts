// The custom auth isolation matrix on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeAuthIsolationE2E } from "./auth-isolation.cases.js";

describeAuthIsolationE2E("sqlite", openSqliteStore);
