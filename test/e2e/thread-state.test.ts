// The thread state e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeThreadStateE2E } from "./thread-state.cases.js";

describeThreadStateE2E("sqlite", openSqliteStore);
