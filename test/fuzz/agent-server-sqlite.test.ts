// The Agent Server fuzzer (agent-server.cases.ts) on the embedded SQLite file. PostgreSQL has its
// own file so that the two run side by side.
import { openSqliteStore } from "../e2e/backends.js";
import { describeAgentServerFuzz } from "./agent-server.cases.js";

describeAgentServerFuzz("sqlite", openSqliteStore);
