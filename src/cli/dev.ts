// `gantry dev`: one process serving the API on the embedded SQLite file (or DATABASE_URL), with the
// graphs of a langgraph.json; events and signals stay in process. Ctrl-C stops accepting, lets
// running runs finish for the grace period, interrupts what is left (hands it back to the queue
// with --shared-database), and closes storage. Without --shared-database the data directory is this
// process's alone: a second `gantry dev` on it exits before touching anything.
import { loadDevConfig, type DevFlags } from "../config/server-config.js";
import { createMemoryBus } from "../events/event-bus.js";
import { createMemoryEventLog } from "../events/memory-event-log.js";
import { createLogger, type Logger } from "../logging.js";
import { lockDataDir } from "../storage/sqlite/data-dir-lock.js";
import type { RunningServer } from "./agent-server.js";
import { type EarlyListener, listenEarly } from "./listen-http.js";

export type { RunningServer };

export async function startDevServer(flags: DevFlags, log?: Logger): Promise<RunningServer> {
  const config = loadDevConfig(flags);
  const logger = log ?? createLogger(config.log);
  // The data directory and the port first, before the server's modules and the graphs load: a
  // second server started by mistake (a double `npm start`) stops at once, before its recovery
  // takes back the first one's live runs. --shared-database: a rollout's two revisions use one
  // directory on purpose (docs/decisions.md).
  const lock = !config.databaseUrl && !flags.sharedDatabase ? lockDataDir(config.dataDir) : undefined;
  let early: EarlyListener | undefined;
  try {
    early = await listenEarly(config.host, config.port);
    const { startAgentServer } = await import("./agent-server.js");
    const events = createMemoryEventLog({ retentionMs: config.streamRetentionMs });
    return await startAgentServer(
      config,
      logger,
      {
        role: "all",
        workerId: `dev-${process.pid}`,
        events,
        bus: createMemoryBus({ log: logger }),
        aloneOnDatabase: !flags.sharedDatabase,
        handOffOnShutdown: flags.sharedDatabase === true,
        startDrained: flags.startDrained === true,
        schemaCacheDir: config.schemaCacheDir,
        watchGenerativeUi: true,
        close: async () => {
          await events.close();
          lock?.release();
        },
      },
      early,
    );
  } catch (err) {
    early?.server.close();
    lock?.release();
    throw err;
  }
}
