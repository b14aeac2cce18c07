// The packages a Gantry server imports at start, loaded before tsx's loader hooks are registered.
// Once any hook is registered, Node hands every module it resolves and loads to the hooks' thread
// and waits for the answer; tsx then also reads each file to decide whether to transform it. That
// doubled to tripled the CPU time of loading these packages (some 700 modules; docs/benchmarks.md,
// 2026-11-28). Loaded first, they are in the module cache when Gantry's TypeScript imports them,
// under the same URLs, and only the few imports of them pass through the hooks. A package left off
// the list still loads, through the hooks; one listed but no longer imported costs its load time.
const BOTH = [
  "@langchain/langgraph",
  "@langchain/langgraph/stream",
  "@langchain/langgraph-checkpoint",
  "@langchain/langgraph-checkpoint-sqlite",
  "@langchain/core/callbacks/base",
  "@langchain/core/tracers/tracer_langchain",
  "@langchain/core/utils/json_schema",
  "@langchain/core/utils/types",
  "@opentelemetry/api",
  "@hono/node-server",
  "hono",
  "hono/body-limit",
  "hono/http-exception",
  "better-sqlite3",
  "sqlite-vec",
  "croner",
  "uuid",
  "ws",
  "zod",
];

/** What `gantry dev` and `gantry serve` load at start; `serve` adds PostgreSQL and Redis. */
export const SERVER_PACKAGES = {
  dev: BOTH,
  serve: [...BOTH, "pg", "ioredis", "@langchain/langgraph-checkpoint-postgres"],
};

/** Options of `gantry dev` and `gantry serve` followed by a value, which is no command name. */
const TAKES_VALUE = new Set(["--config", "-c", "--port", "-p", "--host", "--data-dir", "--role"]);

/**
 * The server command argv asks for, or undefined for every other command and for help and
 * version output, which load no server. A guess only decides what loads early, never what runs.
 */
export function serverCommand(argv) {
  const command = argv.find((arg, i) => !arg.startsWith("-") && !TAKES_VALUE.has(argv[i - 1]));
  if (command !== "dev" && command !== "serve") return undefined;
  return argv.some((arg) => arg === "--help" || arg === "-h" || arg === "--version") ? undefined : command;
}

export async function loadServerPackages(command) {
  for (const name of SERVER_PACKAGES[command]) await import(name);
}
