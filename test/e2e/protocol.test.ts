// The protocol (v2) e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeProtocolE2E } from "./protocol.cases.js";

describeProtocolE2E("sqlite", openSqliteStore);
