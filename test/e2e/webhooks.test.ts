// The webhook e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeWebhooksE2E } from "./webhooks.cases.js";

describeWebhooksE2E("sqlite", openSqliteStore);
