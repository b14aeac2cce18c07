// The records the domain hands to its callers, named here so that the HTTP edge depends on the
// domain alone and never on storage (test/architecture.test.ts).
export type {
  Assistant,
  Json,
  JsonObject,
  Run,
  RunCommand,
  RunKwargs,
  RunStatus,
  StreamMode,
  Thread,
} from "../storage/records.js";
export { STREAM_MODES } from "../storage/records.js";
export type { CronFilter } from "../storage/cron-ports.js";
export type { Page, Paged, ThreadFilter } from "../storage/ports.js";
