// Everything `gantry dev` and `gantry serve` both start: storage, graphs, domain services, the queue
// worker, the cron scheduler, webhook delivery, sweepers and the HTTP app, composed for one role.
// What differs between the two commands (event log and bus in process or in Redis, boot recovery,
// shutdown hand-off, health probes) comes in as `ServerInfra`.
import { withEncryptedStorage } from "../encryption/encrypted-storage.js";
import { loadEncryption } from "../encryption/load-encryption.js";
import { Hono } from "hono";
import { applyProjectEnv, type ServeRole, type ServerConfig } from "../config/server-config.js";
import { missingEnvFileMessage, parseImportString } from "../config/langgraph-config.js";
import { loadAuth, type AuthenticateHook, type AuthHooks } from "../auth/load-auth.js";
import { assistantService, ensureSystemAssistants } from "../domain/assistants.js";
import { cronService } from "../domain/crons.js";
import { headerFilter } from "../domain/configurable-headers.js";
import { runOutputService } from "../domain/run-output.js";
import { protocolService } from "../protocol/service.js";
import { runService } from "../domain/runs.js";
import { storeService } from "../domain/store.js";
import { threadStateService } from "../domain/thread-state.js";
import { threadService } from "../domain/threads.js";
import type { MessageBus } from "../events/event-bus.js";
import { bestEffortWrites } from "../events/best-effort-log.js";
import type { RunEventLog } from "../events/run-event-log.js";
import { runSignals } from "../queue/run-signals.js";
import { Worker } from "../queue/worker.js";
import { createTypedSchemaSource } from "../runtime/typed-schemas/typed-schema-source.js";
import { fileClock, systemClock } from "../scheduler/clock.js";
import { CronScheduler } from "../scheduler/cron-scheduler.js";
import { StartupError } from "../errors.js";
import type { EarlyListener } from "./listen-http.js";
import { backendMetrics } from "./backend-metrics.js";
import { startObserving } from "./observe.js";
import type { Logger } from "../logging.js";
import { loadGraphRegistry } from "../runtime/graph-registry.js";
import { GraphStore } from "../domain/graph-store.js";
import { importExport } from "../runtime/load-module.js";
import { loadStoreIndex } from "../runtime/store-embedder.js";
import { createApp, type AppDeps, type HealthProbe } from "../server/app.js";
import { startGenerativeUi } from "../generative-ui/generative-ui.js";
import { registerLoopback } from "../server/loopback.js";
import { serveWebSocketUpgrades } from "../server/websocket-upgrade.js";
import { requireRevisionToken } from "../server/revision-token.js";
import type { UserApp } from "../server/user-app.js";
import { registerSdkLogger } from "../runtime/sdk-logger.js";
import { healthCheck } from "../server/routes/meta.js";
import { openStorage } from "../storage/open-storage.js";
import type { Storage } from "../storage/ports.js";
import { startStoreTtlSweeper } from "../sweepers/store-ttl.js";
import { startThreadTtlSweeper } from "../sweepers/thread-ttl.js";
import { WebhookDeliveryLoop } from "../webhooks/delivery-loop.js";
import { createWebhookMetrics } from "../webhooks/delivery-metrics.js";
import { resolveHost } from "../webhooks/resolve-host.js";

export interface RunningServer {
  url: string;
  port: number;
  config: ServerConfig;
  /**
   * Stops claiming runs and firing crons while the API keeps answering (SIGUSR2). The control
   * plane drains a replaced revision so: its successor, on the same database, takes the new work.
   */
  drain(): Promise<void>;
  /** Starts claiming runs and firing crons, for a server started with `startDrained`; once only. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export interface ServerInfra {
  /** Which parts run: the HTTP API, the queue worker (with scheduler, webhook delivery, sweepers), or both. */
  role: ServeRole;
  /** Names this process's leases, webhook claims and logs; unique among replicas. */
  workerId: string;
  events: RunEventLog;
  bus: MessageBus;
  /**
   * `gantry dev`: alone on its database, so every lease at boot is from a process that stopped,
   * even one that has not run out yet, and is taken back at once.
   */
  aloneOnDatabase: boolean;
  /** At shutdown, runs still running after the grace period go back to the queue (another replica resumes them) instead of being interrupted. */
  handOffOnShutdown: boolean;
  /**
   * Serve the API but take no runs or crons until resume(): a rollout's new revision, so that
   * runs created on the revision still live are not executed here (docs/decisions.md).
   */
  startDrained?: boolean;
  /** See WorkerOptions: one sweeper at a time across replicas. */
  sweepLock?: () => Promise<boolean>;
  /** Services besides the database that /ok checks (Redis). */
  probes?: HealthProbe[];
  /** Where schemas read from TypeScript types are kept between runs (`gantry dev`); memory only when absent. */
  schemaCacheDir?: string;
  /** `gantry dev`: rebuild langgraph.json's `ui` entries when their files change. */
  watchGenerativeUi?: boolean;
  /** Commands sent to Redis so far, for /metrics. */
  redisCommandsSent?: () => number;
  /** Releases what the infra holds (Redis connections), after everything else stopped. */
  close(): Promise<void>;
}

/**
 * The server on `early`, the listener its command opened before this module loaded; on failure the
 * command closes it.
 */
export async function startAgentServer(config: ServerConfig, logger: Logger, infra: ServerInfra, early: EarlyListener): Promise<RunningServer> {
  const { role, bus } = infra;
  const events = bestEffortWrites(infra.events, logger);
  const runsWorker = role !== "api";
  const servesApi = role !== "worker";
  applyProjectEnv(config.project);
  warnAboutConfig(config.project, logger);
  // Before any user module is imported: one may call getLogger() or create its Client at import.
  registerSdkLogger(logger);
  const loopback = registerLoopback(`http://localhost:${config.port}${config.mountPrefix}`);

  const graphs = await loadGraphRegistry(config.project.graphs);
  const userApp = config.project.http.app ? await loadUserApp(config.project.root, config.project.http.app) : undefined;
  const auth = await loadProjectAuth(config.project.root, config.project.raw.auth?.path, logger);
  const storeConfig = config.project.raw.store;
  const storeIndex = storeConfig?.index ? await loadStoreIndex(config.project.root, storeConfig.index) : undefined;
  // Built before storage opens: an entry that does not build stops start-up like a broken graph.
  const generativeUi =
    servesApi && config.project.raw.ui && !config.project.http.disable_ui
      ? await startGenerativeUi(config.project, { watch: infra.watchGenerativeUi === true, log: logger })
      : undefined;
  const encryption = await loadEncryption(config.project.root, config.project.raw.encryption?.path, config.encryption);
  const opened = await openStorage({ ...config, ...(encryption.serde ? { serde: encryption.serde } : {}) }, logger);
  const { migrated, location } = opened;
  const storage = encryption.ring
    ? withEncryptedStorage(opened.storage, { ring: encryption.ring, jsonKeys: config.encryption.jsonKeys, storeClearKeys: config.encryption.storeClearKeys })
    : opened.storage;
  logger.info("storage ready", { backend: storage.backend, location, migrated, encryption: encryption.mode });

  const assistants = assistantService({ assistants: storage.assistants, threads: storage.threads, graphs, defaults: config.graphDefaults });
  const state = threadStateService({ threads: storage.threads, runs: storage.runs, graphs, checkpoints: storage.checkpoints });
  const threads = threadService({ threads: storage.threads, ttl: config.threadTtl, checkpoints: storage.checkpoints, state, runs: storage.runs, events });
  const store = storeService({
    store: storage.store,
    settings: {
      refreshOnRead: storeConfig?.ttl?.refresh_on_read ?? true,
      ...(storeConfig?.ttl?.default_ttl !== undefined ? { defaultTtl: storeConfig.ttl.default_ttl } : {}),
      ...(storeIndex ? { index: storeIndex } : {}),
    },
  });
  const { created, drifted } = await ensureSystemAssistants(storage.assistants, graphs, config.graphDefaults);
  logger.info("graphs loaded", { graphs: graphs.ids(), system_assistants_created: created });
  const unknownGraphs = Object.keys(config.graphDefaults).filter((graphId) => !graphs.has(graphId));
  if (unknownGraphs.length > 0)
    logger.warn("LANGGRAPH_CONFIG names graphs that langgraph.json does not have; their entries are ignored", { graphs: unknownGraphs });
  if (drifted.length > 0) {
    logger.warn(
      "system assistants keep the config they were created with, which differs from LANGGRAPH_CONFIG now; update them through the API (the graph id is their assistant id) to apply it",
      {
        graphs: drifted,
      },
    );
  }

  const webhookMetrics = createWebhookMetrics();
  const { observe, runMetrics, observer } = await startObserving(config, storage, logger, () => worker?.load());
  let selfUrl = "";
  const deliveries =
    config.webhooks.enabled && runsWorker
      ? new WebhookDeliveryLoop({ outbox: storage.webhooks, log: logger, metrics: webhookMetrics, otel: observe.otel }, config.webhooks, {
          owner: infra.workerId,
          selfUrl: () => selfUrl,
        })
      : undefined;
  const worker = runsWorker
    ? new Worker(
        {
          storage,
          store: new GraphStore(store),
          graphs,
          events,
          bus,
          log: logger,
          ...(deliveries ? { webhooks: { recorded: () => deliveries.wake() } } : {}),
          ...(infra.sweepLock ? { sweepLock: infra.sweepLock } : {}),
          observer,
        },
        { workerId: infra.workerId, ...config.queue },
      )
    : undefined;
  const runs = runService({
    runs: storage.runs,
    checkpoints: storage.checkpoints,
    threads: storage.threads,
    assistants,
    graphs,
    webhookPolicy: config.webhooks.policy,
    webhooksDisabled: !config.webhooks.enabled,
    resolveHost,
    configurableHeaders: headerFilter(config.project.http.configurable_headers),
    log: logger,
    threadTtl: config.threadTtl,
    signals: runSignals({
      events,
      bus,
      ...(worker ? { worker } : {}),
      ...(deliveries ? { webhookRecorded: () => deliveries.wake() } : {}),
      log: logger,
    }),
  });
  const output = runOutputService({ events, runs: storage.runs, threads: storage.threads });

  const cronClock = config.cron.clockFile ? fileClock(config.cron.clockFile) : systemClock;
  const crons = cronService({
    crons: storage.crons,
    threads: storage.threads,
    assistants,
    runs,
    graphs,
    clock: cronClock,
  });
  // SQLite runs every statement synchronously on one connection, so firing several at once only
  // interleaves them; on PostgreSQL eight at once fired 500 due crons 2.5 times faster (bench/crons.ts).
  const fireConcurrency = storage.backend === "sqlite" ? 1 : 8;
  const scheduler = runsWorker
    ? new CronScheduler(
        { crons: storage.crons, fire: crons.fire, clock: cronClock, log: logger },
        { pollMs: config.cron.pollMs, batch: 100, concurrency: fireConcurrency },
      )
    : undefined;

  const typedSchemas = createTypedSchemaSource({
    graphs: config.project.graphs,
    log: logger,
    ...(infra.schemaCacheDir ? { cacheDir: infra.schemaCacheDir } : {}),
  });
  const deps: AppDeps = {
    config,
    storage,
    graphs,
    typedSchemas,
    assistants,
    threads,
    state,
    runs,
    crons,
    store,
    output,
    protocol: protocolService({ runs, threads, state, output }),
    log: logger,
    metricsSources: [
      webhookMetrics,
      backendMetrics({
        ...(storage.statementsSent ? { postgresStatements: storage.statementsSent } : {}),
        ...(infra.redisCommandsSent ? { redisCommands: infra.redisCommandsSent } : {}),
      }),
      // After the statement counter is read: its queue query then counts in the next scrape only.
      runMetrics,
    ],
    ...(infra.probes ? { probes: infra.probes } : {}),
    runMetrics,
    ...(observe.otel ? { otel: observe.otel } : {}),
    ...(userApp ? { userApp } : {}),
    ...(auth ? { auth } : {}),
    ...(generativeUi ? { generativeUi } : {}),
    loopback,
  };
  // A worker-only process serves no API, but its graphs' loopback calls still need one.
  const api = createApp(deps).app;
  loopback.bind((request, env) => api.fetch(request, env));
  const app = servesApi ? api : healthOnlyApp(storage, infra.probes ?? [], config.mountPrefix);

  const { server, port, origin } = early;
  const served = config.revisionToken ? requireRevisionToken(config.revisionToken, app.fetch) : app.fetch;
  early.serve(served);
  const upgrades = servesApi ? serveWebSocketUpgrades(server, served, { maxPayload: config.maxBodyBytes, log: logger }) : undefined;
  if (infra.aloneOnDatabase) {
    await worker?.recover(new Date(Date.now() + config.queue.leaseMs));
    await deliveries?.recover(new Date(Date.now() + config.webhooks.timeoutMs + 60_000));
  }
  // Runs and crons are taken from here on, or from resume() for a server started drained; after the
  // loopback is bound, since a run resumed at boot may call this server at once.
  let work: "waiting" | "working" | "drained" = "waiting";
  const resume = async () => {
    if (work !== "waiting") return;
    work = "working";
    await worker?.start();
    scheduler?.start();
  };
  if (!infra.startDrained) await resume();
  if (config.cron.clockFile) logger.warn("cron schedules read the clock file, not the system clock", { file: config.cron.clockFile });

  const sweeper = runsWorker
    ? startThreadTtlSweeper({
        threads,
        intervalMs: config.threadTtl.sweepIntervalMinutes * 60_000,
        limit: config.threadTtl.sweepLimit,
        log: logger,
      })
    : undefined;

  const storeSweepMinutes = storeConfig?.ttl?.sweep_interval_minutes;
  const storeSweeper =
    storeSweepMinutes === undefined || !runsWorker ? undefined : startStoreTtlSweeper({ store, intervalMs: storeSweepMinutes * 60_000, log: logger });

  const url = `${origin}${config.mountPrefix}`;
  selfUrl = url;
  loopback.listening(url);
  deliveries?.start();
  logger.info("listening", { url, role, worker_id: infra.workerId, ...(servesApi ? { view: `${url}/gantry`, docs: `${url}/docs` } : {}) });
  // Under `gantry dev` the graphs are being written and looked at (Studio asks for their schemas
  // first thing): read the types now, on their worker thread, into the on-disk cache, so the first
  // /schemas answer is typed without the wait. Servers in production read them when first asked.
  if (servesApi && infra.schemaCacheDir) typedSchemas.warm();

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    config,
    async drain() {
      if (work === "drained") return;
      work = "drained";
      logger.info("draining: no more runs or crons are taken here");
      await scheduler?.stop();
      await worker?.stopClaiming();
    },
    async resume() {
      if (work === "waiting") logger.info("resumed: taking runs and crons");
      await resume();
    },
    close() {
      closing ??= (async () => {
        // No new connections from here on: a load balancer sends new requests to other replicas,
        // while requests under way (and open streams) continue through the grace period.
        const closed = new Promise<void>((done) => server.close(() => done()));
        await scheduler?.stop();
        await sweeper?.stop();
        await storeSweeper?.stop();
        await worker?.stop({ graceMs: config.queue.shutdownGraceMs, handOff: infra.handOffOnShutdown });
        // After the worker: runs finishing during the grace period still record their webhooks.
        await deliveries?.stop();
        await typedSchemas.close();
        await generativeUi?.close();
        // Open streams would hold close() forever; their clients reconnect elsewhere (Location).
        server.closeAllConnections();
        await upgrades?.close();
        await closed;
        await infra.close();
        await storage.close();
        await observe.flush();
        logger.info("stopped");
      })();
      return closing;
    },
  };
}

/** `--role worker`: no API, only /ok (liveness, or readiness with check_db=1) for the orchestrator. */
function healthOnlyApp(storage: Storage, probes: HealthProbe[], prefix: string): Hono {
  const app = new Hono();
  const check = healthCheck(storage, probes);
  app.get(`${prefix}/ok`, async (c) => {
    const { body, status, headers } = await check(["1", "true"].includes(c.req.query("check_db")?.toLowerCase() ?? ""));
    return c.json(body, status, headers);
  });
  app.notFound((c) => c.json({ detail: `No route for ${c.req.method} ${c.req.path}: this process runs with --role worker (only /ok)` }, 404));
  return app;
}

/** The project's auth hooks, or nothing: without `authenticate` requests go through unchecked (spec §6.3). */
async function loadProjectAuth(root: string, path: string | undefined, logger: Logger): Promise<(AuthHooks & { authenticate: AuthenticateHook }) | undefined> {
  if (!path) return undefined;
  const hooks = await loadAuth(root, path);
  if (!hooks.authenticate) {
    logger.warn("auth.path has no authenticate handler: requests are not authenticated and its handlers do not run", { path });
    return undefined;
  }
  logger.info("custom auth loaded", { path, handlers: [...hooks.handlers.keys()] });
  return { ...hooks, authenticate: hooks.authenticate };
}

async function loadUserApp(root: string, spec: string): Promise<UserApp> {
  const target = parseImportString(root, spec);
  const exported = await importExport(target, "http.app");
  if (!exported || typeof (exported as { fetch?: unknown }).fetch !== "function") {
    throw new StartupError(`http.app: '${target.exportName}' exported from ${target.file} is not a Hono app (it has no fetch method).`);
  }
  return exported as UserApp;
}

/** What of langgraph.json is ignored or missing, once at start. */
function warnAboutConfig(project: ServerConfig["project"], logger: Logger): void {
  const { unused, unknown } = project.ignoredKeys;
  if (unused.length > 0) logger.warn("langgraph.json keys for image builds and features Gantry lacks are ignored", { file: project.configPath, keys: unused });
  if (unknown.length > 0) logger.warn("langgraph.json keys no LangGraph CLI knows are ignored (a typo?)", { file: project.configPath, keys: unknown });
  if (project.missingEnvFile) logger.warn(missingEnvFileMessage(project.missingEnvFile), { file: project.configPath });
}
