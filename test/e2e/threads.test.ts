import { openSqliteStore } from "./backends.js";
import { describeThreadsE2E } from "./threads.cases.js";

describeThreadsE2E("sqlite", openSqliteStore);
