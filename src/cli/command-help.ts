// The help of each command that main.ts runs itself, in the form of `gantry deploy --help`: what
// the command does, its options, the environment it reads, its signals and exit codes. Kept apart
// from the commands so that printing help loads nothing else.

export const GENERAL_USAGE = `Usage: gantry <command> [options]
       gantry help <command>        the command's own help (also: gantry <command> --help)

Commands:
  dev            Run the Agent Server on an embedded SQLite file (no services needed)
  serve          Run a production replica on PostgreSQL and Redis
  control-plane  Run the /v2/deployments control plane; 'control-plane keys' creates, lists and revokes API keys
  deploy         Create or update a deployment and follow it to DEPLOYED

Options:
  --version      print the version
  --help         print this help`;

const SERVER_ENVIRONMENT = `  LOG_LEVEL, LOG_JSON, CORS_ALLOW_ORIGINS, MOUNT_PREFIX, HTTP_MAX_REQUEST_BODY_BYTES, N_JOBS_PER_WORKER,
  BG_JOB_TIMEOUT_SECS, BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS, LANGGRAPH_CONFIG: see README.md`;

export const DEV_USAGE = `Usage: gantry dev [--config <path>] [options]

Serves the graphs of a langgraph.json on one process: the API, the runs' worker and crons, and the
/gantry view, with everything stored in an embedded SQLite file (or PostgreSQL, see below).

Options:
  --config <path>     langgraph.json to serve (default: ./langgraph.json)
  --port <n>          port to listen on (default: $PORT or 2024)
  --host <addr>       address to bind (default: 127.0.0.1)
  --data-dir <dir>    where the SQLite file lives (default: .gantry/ beside the config); one
                      'gantry dev' per directory unless --shared-database
  --shared-database   other processes use this database too: leave their live runs alone at start,
                      hand unfinished runs back to the queue at shutdown (the control plane sets it)
  --start-drained     take no runs or crons until the parent process sends "resume" over IPC
                      (the control plane starts a rollout's new revision so)

Environment:
  DATABASE_URL        PostgreSQL instead of the SQLite file (or the official servers' names:
                      POSTGRES_URI_CUSTOM, DATABASE_URI)
${SERVER_ENVIRONMENT}

Signals: SIGINT (Ctrl-C) and SIGTERM stop it: running runs get the grace period, then are
interrupted. SIGUSR2 drains it (no more runs or crons are taken; the API keeps answering).

Exit codes: 0 stopped by a signal, 1 start-up failed (one line says why), 2 bad usage.`;

export const SERVE_USAGE = `Usage: gantry serve [--config <path>] [options]

Runs one production replica: start as many as you like against one PostgreSQL database and one
Redis, behind any load balancer. See docs/production.md.

Options:
  --config <path>     langgraph.json to serve (default: ./langgraph.json)
  --port <n>          port to listen on (default: $PORT or 8123)
  --host <addr>       address to bind (default: 0.0.0.0)
  --role <role>       all (default): API and worker; api: HTTP only; worker: runs, crons, webhooks, /ok

Environment:
  DATABASE_URL        PostgreSQL, required (or the official servers' names, first set wins:
                      POSTGRES_URI_CUSTOM, DATABASE_URI)
  REDIS_URL           Redis, required (or REDIS_URI_CUSTOM, REDIS_URI); REDIS_CLUSTER=true is refused
  REDIS_KEY_PREFIX    prefix of every Redis key (default: gantry:)
${SERVER_ENVIRONMENT}

Signals: SIGTERM and SIGINT stop it: no new requests, running runs get the grace period, then go
back to the queue for another replica. SIGUSR2 drains it (no more runs or crons are taken).
Under npx the signal reaches npm, not Gantry: in production run 'node_modules/.bin/gantry serve'.

Exit codes: 0 stopped by a signal, 1 start-up failed (one line says why), 2 bad usage.`;

export const KEYS_USAGE = `Usage: gantry control-plane keys create [--data-dir <dir>] [--name <label>] [--tenant <uuid>]
       gantry control-plane keys list [--data-dir <dir>]
       gantry control-plane keys revoke <id> [--data-dir <dir>]

create mints an API key for the control plane, prints it once on stdout and appends its hash (never
the key) to <data-dir>/api-keys, or to $GANTRY_API_KEYS_FILE. list prints each key's id, label,
tenant and creation time. revoke removes a key by its id; a running control plane reads the keys
file again when it changes, so a new or revoked key counts from the next request.

Options:
  --data-dir <dir>    the control plane's data directory (default: ./.gantry-control-plane)
  --name <label>      a label kept beside the hash (default: key)
  --tenant <uuid>     the key acts only in this tenant, whatever X-Tenant-Id says

Exit codes: 0 done, 1 no such key (revoke) or the keys file cannot be written, 2 bad usage.`;
