import { openSqliteStore } from "./backends.js";
import { describeAssistantsE2E } from "./assistants.cases.js";

describeAssistantsE2E("sqlite", openSqliteStore);
