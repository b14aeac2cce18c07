// The protocol (v2) WebSocket e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeProtocolWebSocketE2E } from "./protocol-ws.cases.js";

describeProtocolWebSocketE2E("sqlite", openSqliteStore);
