// The reference server's own e2e checks (reference-parity.cases.ts) on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeReferenceParity } from "./reference-parity.cases.js";

describeReferenceParity("sqlite", openSqliteStore);
