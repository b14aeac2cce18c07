// The impure shell around plan(): each tick reads every deployment and its running servers, plans,
// and runs the actions, one deployment at a time each (a deployment busy with a build does not hold
// up the others). Statuses live in the database and builds in the cache, so a control plane killed
// at any point resumes where it was on the next start.
import { join } from "node:path";
import { ENV_FILE_OPTIONAL_VARIABLE } from "../../config/server-config.js";
import { wakeLoop } from "../../events/wake-loop.js";
import type { Logger } from "../../logging.js";
import type { Builder, BuildKey, BuildRequest } from "../builder/builder.js";
import { resolveRef } from "../builder/git.js";
import type { DeploymentService } from "../deployments.js";
import type { Driver } from "../drivers/driver.js";
import type { SecretsCipher } from "../secrets-cipher.js";
import type { SourceUploads } from "../uploads/source-uploads.js";
import type { ControlPlaneStore } from "../storage/ports.js";
import { TERMINAL_STATUSES, type DeploymentRecord, type LogLevel, type RevisionRecord } from "../storage/records.js";
import { plan, type Action, type DesiredDeployment } from "./plan.js";

export interface ReconcilerDeps {
  store: ControlPlaneStore;
  deployments: DeploymentService;
  cipher: SecretsCipher;
  builder: Builder;
  driver: Driver;
  /** The archives internal_source revisions build. */
  uploads: Pick<SourceUploads, "pathOf" | "prune" | "removeDeployment">;
  /** The environment builds and servers start from: the few variables Gantry passes on, nothing else of its own. */
  deploymentEnv: NodeJS.ProcessEnv;
  log: Logger;
}

export interface ReconcilerOptions {
  tickMs: number;
  pushPollMs: number;
  /** Cached builds kept per deployment; only builds in use may exceed it (pruneBuilds). */
  buildsPerDeployment: number;
}

/** Revisions looked at per deployment: the pending ones are always among the newest. */
const RECENT_REVISIONS = 20;

export class Reconciler {
  private readonly busy = new Set<string>();
  /** The build in progress per deployment, cancelled when a newer revision or a delete overtakes it. */
  private readonly builds = new Map<string, { revisionId: string; controller: AbortController }>();
  /** Deployments whose build cache is to be pruned once none of their servers is draining. */
  private readonly prunePending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private pushTimer: NodeJS.Timeout | undefined;
  private readonly ticks = wakeLoop(
    () => this.tick(),
    (err) => this.deps.log.error("reconcile tick failed", { err }),
  );
  private stopped = false;
  private checkingPushes = false;
  private pushChain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: ReconcilerDeps,
    private readonly options: ReconcilerOptions,
  ) {
    deps.driver.onChange(() => this.wake());
  }

  async start(): Promise<void> {
    await this.deps.driver.recover();
    await this.deps.builder.removeUnfinished();
    this.timer = setInterval(() => this.wake(), this.options.tickMs);
    this.pushTimer = setInterval(() => void this.checkPushes(), this.options.pushPollMs);
    this.wake();
  }

  /** Plan again soon; calls while a tick runs coalesce into one more tick. */
  wake(): void {
    this.ticks.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // Before the builds are aborted: what their ends wake must not start another tick.
    const ticking = this.ticks.stop();
    clearInterval(this.timer);
    clearInterval(this.pushTimer);
    for (const build of this.builds.values()) build.controller.abort(new Error("the control plane is stopping"));
    await ticking;
  }

  private async tick(): Promise<void> {
    const { store, driver } = this.deps;
    const deployments = await store.allDeployments();
    const known = new Set(deployments.map((d) => d.id));
    this.cancelOvertakenBuilds(deployments);
    for (const deployment of deployments) {
      if (this.busy.has(deployment.id)) continue;
      const revisions = await this.revisionsOf(deployment);
      const desired: DesiredDeployment = {
        id: deployment.id,
        status: deployment.status,
        active_revision_id: deployment.active_revision_id,
        revisions: revisions.map((r) => ({ id: r.id, status: r.status, built: this.isBuilt(deployment, r) })),
      };
      const instances = driver.instances().filter((i) => i.deployment_id === deployment.id);
      const actions = plan(desired, instances);
      // A prune put off while a server drained runs once none does.
      const prune = actions.length === 0 && this.prunePending.has(deployment.id) && !instances.some((i) => i.state === "stopping");
      if (actions.length === 0 && !prune) continue;
      this.busy.add(deployment.id);
      void (prune ? this.pruneBuilds(deployment) : this.run(deployment, revisions, actions))
        .catch((err: unknown) => this.deps.log.error("reconcile actions failed", { deployment_id: deployment.id, err }))
        .finally(() => {
          this.busy.delete(deployment.id);
          this.wake();
        });
    }
    // Servers of deployments whose records are gone (a forced delete) stop too.
    for (const instance of driver.instances()) {
      if (!known.has(instance.deployment_id) && instance.state !== "stopping") driver.stop(instance.revision_id);
    }
  }

  private cancelOvertakenBuilds(deployments: DeploymentRecord[]): void {
    for (const [deploymentId, build] of this.builds) {
      const deployment = deployments.find((d) => d.id === deploymentId);
      const reason = !deployment
        ? "the deployment was deleted"
        : deployment.status === "AWAITING_DELETE"
          ? "the deployment is being deleted"
          : deployment.latest_revision_id !== build.revisionId
            ? `revision ${deployment.latest_revision_id} replaced it`
            : undefined;
      if (reason && !build.controller.signal.aborted) build.controller.abort(new Error(reason));
    }
  }

  private async revisionsOf(deployment: DeploymentRecord): Promise<RevisionRecord[]> {
    const recent = await this.deps.store.listRevisions(deployment.id, undefined, RECENT_REVISIONS, 0);
    const active = deployment.active_revision_id;
    if (active && !recent.some((r) => r.id === active)) {
      const revision = await this.deps.store.getRevision(deployment.id, active);
      if (revision) recent.push(revision);
    }
    return recent.filter((r) => !TERMINAL_STATUSES.has(r.status) || r.id === active);
  }

  private isBuilt(deployment: DeploymentRecord, revision: RevisionRecord): boolean {
    const sha = revision.repo_commit_sha;
    return sha !== null && this.deps.builder.cached(sha, { ...this.buildKey(deployment), langgraph_config_path: revision.langgraph_config_path }) !== undefined;
  }

  private buildKey(deployment: DeploymentRecord): BuildKey {
    return { deployment_id: deployment.id, install_command: deployment.install_command, build_command: deployment.build_command };
  }

  private async run(deployment: DeploymentRecord, revisions: RevisionRecord[], actions: Action[]): Promise<void> {
    const { store, driver, log } = this.deps;
    for (const action of actions) {
      if (this.stopped) return;
      const bound = log.child({ deployment_id: deployment.id, ...("revision_id" in action ? { revision_id: action.revision_id } : {}) });
      switch (action.type) {
        case "set_status":
          if (await store.setRevisionStatus(action.revision_id, action.status, action.from)) bound.info("revision status", { status: action.status });
          break;
        case "build":
          await this.build(deployment, revisions.find((r) => r.id === action.revision_id)!);
          await this.pruneBuilds(deployment);
          break;
        case "start":
          await this.startServer(deployment, revisions.find((r) => r.id === action.revision_id)!);
          break;
        case "promote":
          await store.promote(deployment.id, action.revision_id);
          driver.promote(action.revision_id);
          bound.info("revision live: the router sends its traffic there now");
          await this.pruneBuilds((await store.getDeployment(deployment.id)) ?? deployment);
          break;
        case "stop":
          driver.stop(action.revision_id);
          bound.info("stopping revision", { revision_id: action.revision_id });
          break;
        case "purge":
          await driver.removeData(deployment.id);
          await this.deps.builder.removeDeployment(deployment.id);
          await this.deps.uploads.removeDeployment(deployment.id);
          this.prunePending.delete(deployment.id);
          await store.purgeDeployment(deployment.id);
          bound.info("deployment deleted");
          break;
      }
    }
  }

  /**
   * Bounds the deployment's build cache. Kept whatever their age: the builds of the live revision,
   * of the one before it (a rollback by redeploy starts at once), of revisions still rolling out,
   * and of every revision with a server running. While one of its servers drains, a draining
   * server's files stay: the prune waits until it has stopped.
   */
  private async pruneBuilds(deployment: DeploymentRecord): Promise<void> {
    const { store, builder, driver, log } = this.deps;
    const instances = driver.instances().filter((i) => i.deployment_id === deployment.id);
    if (instances.some((i) => i.state === "stopping")) {
      this.prunePending.add(deployment.id);
      return;
    }
    this.prunePending.delete(deployment.id);
    const wanted = new Set<string>(instances.map((i) => i.revision_id));
    if (deployment.active_revision_id) wanted.add(deployment.active_revision_id);
    for (const r of await store.listRevisions(deployment.id, ["DEPLOYED"], 2, 0)) wanted.add(r.id);
    const revisions = await store.listRevisions(deployment.id, undefined, RECENT_REVISIONS, 0);
    for (const r of revisions) if (!TERMINAL_STATUSES.has(r.status)) wanted.add(r.id);
    const keep = new Set<string>();
    const keepArchives = new Set<string>();
    for (const id of wanted) {
      const revision = revisions.find((r) => r.id === id) ?? (await store.getRevision(deployment.id, id));
      const sha = revision?.repo_commit_sha ?? revision?.pinned_commit_sha;
      if (sha) keep.add(builder.dirFor(sha, this.buildKey(deployment)));
      if (revision?.source_tarball_path) keepArchives.add(revision.source_tarball_path);
    }
    const removed = await builder.prune(deployment.id, keep, this.options.buildsPerDeployment);
    if (removed.length > 0) log.info("removed old builds", { deployment_id: deployment.id, builds: removed.length });
    // Uploaded archives follow the same rule: those of the revisions kept, then the newest.
    const archives = await this.deps.uploads.prune(deployment.id, keepArchives, this.options.buildsPerDeployment);
    if (archives > 0) log.info("removed old source archives", { deployment_id: deployment.id, archives });
  }

  private buildRequest(deployment: DeploymentRecord, revision: RevisionRecord): BuildRequest {
    return {
      deployment_id: deployment.id,
      repo_url: deployment.repo_url,
      repo_ref: revision.repo_ref,
      pinned_commit_sha: revision.repo_commit_sha ?? revision.pinned_commit_sha,
      ...(revision.source_tarball_path !== null
        ? { archive: { objectPath: revision.source_tarball_path, file: this.deps.uploads.pathOf(deployment.id, revision.source_tarball_path) } }
        : {}),
      langgraph_config_path: revision.langgraph_config_path,
      install_command: deployment.install_command,
      build_command: deployment.build_command,
      env: this.envOf(revision),
    };
  }

  private envOf(revision: RevisionRecord): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...this.deps.deploymentEnv };
    const secrets = this.deps.cipher.open(revision.secrets_sealed, revision.id);
    for (const secret of secrets) env[secret.name] = secret.value;
    // As on the platform, the secrets take the place of the env file a repository git-ignores.
    if (secrets.length > 0) env[ENV_FILE_OPTIONAL_VARIABLE] = "1";
    return env;
  }

  private async build(deployment: DeploymentRecord, revision: RevisionRecord): Promise<void> {
    const { store, builder, log } = this.deps;
    await store.setRevisionStatus(revision.id, "BUILDING", ["AWAITING_BUILD", "BUILDING"]);
    log.info("building revision", { deployment_id: deployment.id, revision_id: revision.id });
    const write = this.logWriter(revision.id, "build");
    const request = this.buildRequest(deployment, revision);
    const controller = new AbortController();
    this.builds.set(deployment.id, { revisionId: revision.id, controller });
    const outcome = await builder
      .build(request, write, (sha) => store.setRevisionCommit(revision.id, sha), controller.signal)
      .catch((err: unknown) => ({ ok: false as const, reason: `The build stopped on an internal error: ${(err as Error).message}` }))
      .finally(() => this.builds.delete(deployment.id));
    // Stopping leaves the revision BUILDING: the next start builds it again.
    if (this.stopped) return;
    if (controller.signal.aborted) {
      write("WARNING", `Build cancelled: ${(controller.signal.reason as Error).message}`);
      await store.setRevisionStatus(revision.id, "INTERRUPTED", ["BUILDING"]);
      log.info("build cancelled", { deployment_id: deployment.id, revision_id: revision.id, reason: (controller.signal.reason as Error).message });
    } else if (outcome.ok) {
      write("INFO", "Build finished");
      await store.setRevisionStatus(revision.id, "AWAITING_DEPLOY", ["BUILDING"]);
    } else {
      write("ERROR", outcome.reason);
      await store.setRevisionStatus(revision.id, "BUILD_FAILED", ["BUILDING"]);
      log.info("build failed", { deployment_id: deployment.id, revision_id: revision.id });
    }
  }

  private async startServer(deployment: DeploymentRecord, revision: RevisionRecord): Promise<void> {
    const { builder, driver } = this.deps;
    const request = this.buildRequest(deployment, revision);
    const deployLog = this.logWriter(revision.id, "deploy");
    const cached = revision.repo_commit_sha ? builder.cached(revision.repo_commit_sha, request) : undefined;
    let buildDir = cached;
    if (!buildDir) {
      // The cache was cleared since the build: building the recorded commit again is safe.
      const built = await builder.build(request, this.logWriter(revision.id, "build"), async () => {});
      if (!built.ok) {
        deployLog("ERROR", `Cannot start: ${built.reason}`);
        await this.deps.store.setRevisionStatus(revision.id, "DEPLOY_FAILED", ["DEPLOYING"]);
        return;
      }
      buildDir = built.dir;
    }
    const configPath = join(buildDir, revision.langgraph_config_path);
    try {
      await driver.start(
        {
          deployment_id: deployment.id,
          revision_id: revision.id,
          configPath,
          buildDir,
          env: request.env,
          resourceSpec: deployment.resource_spec,
          waitForPromotion: revision.id !== deployment.active_revision_id,
        },
        deployLog,
      );
    } catch (err) {
      // The deploy log has the reason. A rollout fails; a live revision is started again next tick.
      this.deps.log.warn("the server could not be started", { deployment_id: deployment.id, revision_id: revision.id, err: (err as Error).message });
      await this.deps.store.setRevisionStatus(revision.id, "DEPLOY_FAILED", ["DEPLOYING"]);
    }
  }

  private logWriter(revisionId: string, type: "build" | "deploy") {
    return (level: LogLevel, message: string) => {
      this.deps.store
        .appendLog(revisionId, type, level, message)
        .catch((err: unknown) => this.deps.log.warn("log line not recorded", { revision_id: revisionId, err }));
    };
  }

  /** build_on_push: a deployment whose ref moved gets a revision of the new commit. */
  private async checkPushes(): Promise<void> {
    if (this.checkingPushes) return;
    this.checkingPushes = true;
    try {
      for (const deployment of await this.deps.store.allDeployments()) {
        if (deployment.build_on_push) await this.serialized(() => this.checkPush(deployment.id));
      }
    } catch (err) {
      this.deps.log.error("build_on_push check failed", { err });
    } finally {
      this.checkingPushes = false;
    }
  }

  /** The push webhook: the same check, now, for one deployment. True when it made a revision. */
  checkPushNow(deploymentId: string): Promise<boolean> {
    return this.serialized(() => this.checkPush(deploymentId));
  }

  /** Checks run one at a time, so the watcher and a webhook never both record the same push. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.pushChain.then(work);
    this.pushChain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async checkPush(deploymentId: string): Promise<boolean> {
    const { store, deployments, log } = this.deps;
    const deployment = await store.getDeployment(deploymentId);
    if (!deployment || deployment.status === "AWAITING_DELETE" || !deployment.latest_revision_id) return false;
    const latest = await store.getRevision(deployment.id, deployment.latest_revision_id);
    // Until the latest revision's commit is known there is nothing to compare with.
    const known = latest?.repo_commit_sha ?? latest?.pinned_commit_sha;
    if (!latest || !known) return false;
    const ref = await resolveRef(deployment.repo_url, latest.repo_ref, { ...this.deps.builder.gitOptions(() => {}), timeoutMs: 30_000 });
    if ("error" in ref) {
      log.warn("build_on_push: cannot read the ref", { deployment_id: deployment.id, reason: ref.error });
      return false;
    }
    if (ref.sha === known) return false;
    log.info("build_on_push: the ref moved", { deployment_id: deployment.id, repo_ref: latest.repo_ref, repo_commit_sha: ref.sha });
    await deployments.recordPush(deployment.id, ref.sha);
    return true;
  }
}
