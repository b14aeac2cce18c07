// The TTL e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeTtlE2E } from "./ttl.cases.js";

describeTtlE2E("sqlite", openSqliteStore);
