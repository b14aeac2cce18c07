import { openSqliteStore } from "./backends.js";
import { describePersistenceE2E } from "./persistence.cases.js";

describePersistenceE2E("sqlite", openSqliteStore);
