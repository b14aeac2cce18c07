// The `gantry` command: parses argv, runs a subcommand, turns start-up failures into one message
// and a non-zero exit.
import { parseArgs } from "node:util";
import { StartupError } from "../errors.js";
import { createLogger } from "../logging.js";
import { GANTRY_VERSION } from "../version.js";
import { exitWith, logProcessFaults } from "./process-faults.js";

const USAGE = `Usage: gantry <command> [options]

Commands:
  dev            Run the Agent Server on an embedded SQLite file (no services needed)
  control-plane  Run the /v2/deployments control plane (see gantry control-plane --help)
  serve          Run a production replica on PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)
  deploy         Create or update a deployment and follow it to DEPLOYED (see gantry deploy --help)

Options for dev:
  --config <path>     langgraph.json to serve (default: ./langgraph.json)
  --port <n>          port to listen on (default: 2024)
  --host <addr>       address to bind (default: 127.0.0.1)
  --data-dir <dir>    where the SQLite file lives (default: .gantry/ beside the config)
  --shared-database   other processes use this database too: leave their live runs alone at start,
                      hand unfinished runs back to the queue at shutdown (the control plane sets it)
  --start-drained     take no runs or crons until the parent process sends "resume" over IPC
                      (the control plane starts a rollout's new revision so)

Options for serve:
  --config <path>     langgraph.json to serve (default: ./langgraph.json)
  --port <n>          port to listen on (default: 8123)
  --host <addr>       address to bind (default: 0.0.0.0)
  --role <role>       all (default): API and worker; api: HTTP only; worker: runs, crons, webhooks, /ok

  --version           print the version
  --help              print this help

Environment: DATABASE_URL selects PostgreSQL instead of SQLite (serve needs it, and REDIS_URL); LOG_LEVEL, LOG_JSON, CORS_ALLOW_ORIGINS,
MOUNT_PREFIX and HTTP_MAX_REQUEST_BODY_BYTES tune the server.

Signals: SIGTERM/SIGINT stop the server gracefully; SIGUSR2 drains it (no more runs or crons are
taken, the API keeps answering), as the control plane does to a revision it replaces.`;

async function main(argv: string[]): Promise<number> {
  // These commands have options of their own.
  if (argv[0] === "control-plane") return (await import("./control-plane.js")).runControlPlaneCommand(argv.slice(1));
  if (argv[0] === "deploy") return (await import("./deploy.js")).runDeployCommand(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: "string", short: "c" },
      port: { type: "string", short: "p" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      "shared-database": { type: "boolean" },
      "start-drained": { type: "boolean" },
      role: { type: "string" },
      version: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.version) {
    console.log(GANTRY_VERSION);
    return 0;
  }
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (command !== "dev" && command !== "serve") {
    console.error(`Unknown command '${command}'.\n\n${USAGE}`);
    return 2;
  }
  const common = {
    ...(values.config !== undefined ? { config: values.config } : {}),
    ...(values.port !== undefined ? { port: values.port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
  };
  // Loaded only when a server starts, so --help and argument errors answer without loading LangGraph.
  const server =
    command === "dev"
      ? await (await import("./dev.js")).startDevServer({
          ...common,
          ...(values["data-dir"] !== undefined ? { dataDir: values["data-dir"] } : {}),
          ...(values["shared-database"] ? { sharedDatabase: true } : {}),
          ...(values["start-drained"] ? { startDrained: true } : {}),
        })
      : await (await import("./serve.js")).startServeServer({ ...common, ...(values.role !== undefined ? { role: values.role } : {}) });
  // From here on a fault is logged as the server logs, LOG_LEVEL and LOG_JSON applied.
  logProcessFaults(createLogger(server.config.log));
  await new Promise<void>((resolveStop) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      server.close().then(resolveStop, resolveStop);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    process.on("SIGUSR2", () => void server.drain());
    // From the control plane, when it spawned this server with an IPC channel.
    process.on("message", (message) => {
      if (message === "drain") void server.drain();
      else if (message === "resume") void server.resume();
    });
  });
  return 0;
}

// Until a command has read its configuration (LOG_LEVEL, LOG_JSON), faults go to a logger with
// the same defaults: JSON lines unless stdout is a terminal.
logProcessFaults(createLogger({ level: "info", json: !process.stdout.isTTY }));

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof TypeError && (err as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`gantry: ${err.message}\n\n${USAGE}`);
      return process.exit(2);
    }
    // stderr keeps the one sentence a person at a terminal reads; the log gets it at error level.
    if (err instanceof StartupError) console.error(`gantry: ${err.message}`);
    else console.error("gantry: unexpected failure:", err);
    exitWith("process stopped: start-up failed", { reason: err instanceof Error ? err.message : String(err), ...(err instanceof StartupError ? {} : { err }) });
  },
);
