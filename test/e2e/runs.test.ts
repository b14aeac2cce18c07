// The runs e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeRunCancelE2E } from "./runs-cancel.cases.js";
import { describeRunControlE2E } from "./runs-control.cases.js";
import { describeRunCrashE2E } from "./runs-crash.cases.js";
import { describeRunDisconnectE2E } from "./runs-disconnect.cases.js";
import { describeRunStreamsE2E } from "./runs-stream.cases.js";
import { describeRunsE2E } from "./runs.cases.js";

describeRunsE2E("sqlite", openSqliteStore);
describeRunStreamsE2E("sqlite", openSqliteStore);
describeRunControlE2E("sqlite", openSqliteStore);
describeRunCancelE2E("sqlite", openSqliteStore);
describeRunCrashE2E("sqlite", openSqliteStore);
describeRunDisconnectE2E("sqlite", openSqliteStore);
