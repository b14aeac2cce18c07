// The private-conversations project on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeOwnerAuthE2E } from "./owner-auth.cases.js";

describeOwnerAuthE2E("sqlite", openSqliteStore);
