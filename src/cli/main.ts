// The `gantry` command: parses argv, runs a subcommand, turns start-up failures into one message
// and a non-zero exit.
import { parseArgs } from "node:util";
import { closest } from "../did-you-mean.js";
import { StartupError } from "../errors.js";
import { createLogger } from "../logging.js";
import { GANTRY_VERSION } from "../version.js";
import { exitWith, logProcessFaults } from "./process-faults.js";
import { DEV_USAGE, GENERAL_USAGE, SERVE_USAGE } from "./command-help.js";
import { stopWithNpmParent } from "./parent-watch.js";

const USAGE = GENERAL_USAGE;
const COMMANDS = ["dev", "serve", "control-plane", "deploy", "help"];

/** "Unknown command 'x'", with the command it likely meant. */
function unknownCommand(command: string): string {
  const nearest = closest(command, COMMANDS);
  return `Unknown command '${command}'${nearest ? `: did you mean 'gantry ${nearest}'?` : `; the commands are ${COMMANDS.join(", ")}.`}`;
}

/** `gantry help [command]`: the command's own help, as `gantry <command> --help` prints it. */
async function help(topic: string[]): Promise<number> {
  const [command, sub] = topic;
  if (command === undefined) console.log(GENERAL_USAGE);
  else if (command === "dev") console.log(DEV_USAGE);
  else if (command === "serve") console.log(SERVE_USAGE);
  else if (command === "control-plane" && sub === "keys") return (await import("./control-plane-keys.js")).runKeysCommand(["--help"]);
  else if (command === "control-plane" || command === "deploy") return main([command, "--help"]);
  else {
    console.error(`gantry help: ${unknownCommand(command)}`);
    return 2;
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "help") return help(argv.slice(1));
  // These commands have options of their own.
  if (argv[0] === "control-plane" && argv[1] === "keys") return (await import("./control-plane-keys.js")).runKeysCommand(argv.slice(2));
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
  if (command !== undefined && command !== "dev" && command !== "serve") {
    console.error(`${unknownCommand(command)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help || !command) {
    console.log(command === "dev" ? DEV_USAGE : command === "serve" ? SERVE_USAGE : USAGE);
    return values.help ? 0 : 2;
  }
  if (positionals.length > 1) {
    console.error(`gantry ${command} takes no argument '${positionals[1]}'.\n\n${command === "dev" ? DEV_USAGE : SERVE_USAGE}`);
    return 2;
  }
  if (values.role !== undefined && command !== "serve") {
    console.error(`gantry ${command} has no --role (it is an option of gantry serve).\n\n${DEV_USAGE}`);
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
    stopWithNpmParent(stop);
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
