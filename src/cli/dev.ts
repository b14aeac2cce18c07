// `gantry dev`: one process serving the API on the embedded SQLite file (or DATABASE_URL), with the
// graphs of a langgraph.json; events and signals stay in process. Ctrl-C stops accepting, lets
// running runs finish for the grace period, interrupts what is left (hands it back to the queue
// with --shared-database), and closes storage.
import { join } from "node:path";
import { loadDevConfig, type DevFlags } from "../config/server-config.js";
import { createMemoryBus } from "../events/event-bus.js";
import { createMemoryEventLog } from "../events/run-event-log.js";
import { createLogger, type Logger } from "../logging.js";
import { startAgentServer, type RunningServer } from "./agent-server.js";

export type { RunningServer };

export async function startDevServer(flags: DevFlags, log?: Logger): Promise<RunningServer> {
  const config = loadDevConfig(flags);
  const logger = log ?? createLogger(config.log);
  const events = createMemoryEventLog({ retentionMs: config.streamRetentionMs });
  return startAgentServer(config, logger, {
    role: "all",
    workerId: `dev-${process.pid}`,
    events,
    bus: createMemoryBus({ log: logger }),
    aloneOnDatabase: !flags.sharedDatabase,
    handOffOnShutdown: flags.sharedDatabase === true,
    startDrained: flags.startDrained === true,
    schemaCacheDir: join(config.dataDir, "schema-cache"),
    close: async () => events.close(),
  });
}
