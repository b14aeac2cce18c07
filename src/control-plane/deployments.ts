// The deployment rules behind /v2/deployments: what create, patch, delete and redeploy record, which
// fields are immutable, which secret names are refused, and tenant scoping. No HTTP and no SQL here;
// the reconciler turns what is recorded into running servers.
import { CONTROL_PLANE_VARIABLES } from "../config/control-plane-config.js";
import { GantryError, ValidationFailure, notFound } from "../errors.js";
import { newId } from "../ids.js";
import { parseCustomUrl, type CustomUrl } from "./custom-url.js";
import { bareHost, isLoopbackHost } from "./host-ranges.js";
import { checkRepoUrl, type RepoPolicy } from "./repo-policy.js";
import type { Secret, SecretsCipher } from "./secrets-cipher.js";
import type { ControlPlaneStore, LogQuery, NewRevision } from "./storage/ports.js";
import type { DeploymentRecord, DeploymentStatus, LogLevel, LogRecord, LogType, RevisionRecord, RevisionStatus } from "./storage/records.js";

/** What a GET shows instead of a secret's value. A PATCH that sends it back keeps the stored value. */
export const SECRET_MASK = "********";

/** The platform's reserved names (spec §3.2), plus what the process driver sets itself or needs intact. */
const RESERVED_SECRET_NAMES = new Set([
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_ENDPOINT",
  "LANGCHAIN_PROJECT",
  "LANGSMITH_PROJECT",
  "LANGSMITH_LANGGRAPH_GIT_REPO",
  "LANGGRAPH_GIT_REPO_PATH",
  "LANGCHAIN_API_KEY",
  "LANGSMITH_CONTROL_PLANE_API_KEY",
  "POSTGRES_URI",
  "POSTGRES_PASSWORD",
  "DATABASE_URI",
  "LANGSMITH_LANGGRAPH_GIT_REF",
  "LANGSMITH_LANGGRAPH_GIT_REF_SHA",
  "LANGGRAPH_AUTH_TYPE",
  "LANGSMITH_AUTH_ENDPOINT",
  "LANGSMITH_TENANT_ID",
  "LANGSMITH_AUTH_VERIFY_TENANT_ID",
  "LANGSMITH_HOST_PROJECT_ID",
  "LANGSMITH_HOST_PROJECT_NAME",
  "LANGSMITH_HOST_REVISION_ID",
  "LOG_JSON",
  "LOG_DICT_TRACEBACKS",
  "REDIS_URI",
  "LANGCHAIN_CALLBACKS_BACKGROUND",
  "DD_TRACE_PSYCOPG_ENABLED",
  "DD_TRACE_REDIS_ENABLED",
  "LANGSMITH_DEPLOYMENT_NAME",
  "LANGGRAPH_CLOUD_LICENSE_KEY",
  "PATH",
  "PORT",
  "MOUNT_PREFIX",
  "DATABASE_URL",
  "REDIS_URL",
  "REDIS_KEY_PREFIX",
  "NODE_OPTIONS",
  "LOG_LEVEL",
]);

/** Tag refs can't move, so watching one for pushes is refused (spec §4.2). */
const isTagRef = (ref: string) => ref.startsWith("refs/tags/");

export interface SourceConfigInput {
  integration_id?: string | null;
  repo_url?: string | null;
  deployment_type?: DeploymentRecord["deployment_type"] | null;
  build_on_push?: boolean | null;
  custom_url?: string | null;
  resource_spec?: Record<string, unknown> | null;
  listener_id?: string | null;
  listener_config?: unknown;
  install_command?: string | null;
  build_command?: string | null;
}

export interface SourceRevisionConfigInput {
  repo_ref?: string | null;
  langgraph_config_path?: string | null;
  image_uri?: string | null;
  source_tarball_path?: string | null;
}

export interface CreateInput {
  name: string;
  source: string;
  source_config: SourceConfigInput;
  source_revision_config: SourceRevisionConfigInput;
  secrets: Secret[];
  secret_references?: unknown[] | null;
}

export interface PatchInput {
  name?: string;
  source?: string;
  revision_source?: string | null;
  source_config?: SourceConfigInput | null;
  source_revision_config?: SourceRevisionConfigInput | null;
  secrets?: Secret[] | null;
  secret_references?: unknown[] | null;
}

/** A deployment with the revision whose config it shows (the latest). */
export interface DeploymentView {
  deployment: DeploymentRecord;
  latest: RevisionRecord | undefined;
}

export interface ListDeploymentsInput {
  limit: number;
  offset: number;
  name_contains?: string;
  status?: DeploymentStatus;
  deployment_type?: DeploymentRecord["deployment_type"];
  deployment_ids?: string[];
  /** Filters the platform has that mean nothing here yet; a non-empty value matches no deployment. */
  matchesNothing: boolean;
  remote_reconciled?: boolean;
}

export interface LogsInput {
  type: LogType;
  order: "asc" | "desc";
  limit: number;
  offset?: string;
  level?: LogLevel;
  query?: string;
  start_time?: string;
  end_time?: string;
}

export type DeploymentService = ReturnType<typeof deploymentService>;

/** The tenant a request acts in: a UUID from X-Tenant-Id, or undefined for a key that sees every tenant. */
export type Tenant = string | undefined;

/** Deployments made without X-Tenant-Id belong to this tenant. */
export const DEFAULT_TENANT = "00000000-0000-0000-0000-000000000000";

/** Where uploaded source archives are: a revision may only name one this deployment received. */
export interface ArchiveLookup {
  pathOf(deploymentId: string, objectPath: string): string | undefined;
}

/** What a new revision builds: a ref of the repository, or an uploaded archive. */
type RevisionSource = { source: "github"; ref: string; pinned: string | null } | { source: "internal_source"; tarball: string; pinned: string | null };

export function deploymentService(deps: {
  store: ControlPlaneStore;
  cipher: SecretsCipher;
  archives: ArchiveLookup;
  /** Which repositories may be named (repo-policy.ts). */
  repoPolicy: RepoPolicy;
  changed: () => void;
}) {
  const { store, cipher } = deps;

  async function visible(id: string, tenant: Tenant): Promise<DeploymentRecord> {
    const deployment = await store.getDeployment(id);
    if (!deployment || (tenant !== undefined && deployment.tenant_id !== tenant)) throw notFound(`Deployment ID ${id} not found.`);
    return deployment;
  }

  async function view(deployment: DeploymentRecord): Promise<DeploymentView> {
    const latest = deployment.latest_revision_id ? await store.getRevision(deployment.id, deployment.latest_revision_id) : undefined;
    return { deployment, latest };
  }

  function newRevision(deploymentId: string, from: RevisionSource, configPath: string, secrets: Secret[]): NewRevision {
    const id = newId();
    return {
      id,
      deployment_id: deploymentId,
      source: from.source,
      repo_ref: from.source === "github" ? from.ref : "",
      langgraph_config_path: configPath,
      pinned_commit_sha: from.pinned,
      source_tarball_path: from.source === "internal_source" ? from.tarball : null,
      secrets_sealed: cipher.seal(secrets, id),
      secret_names: secrets.map((s) => s.name),
    };
  }

  /** The source a revision of `id` rebuilds from: the same ref or archive, the same commit or archive digest. */
  function sameSource(revision: RevisionRecord, pinned: string | null): RevisionSource {
    return revision.source === "internal_source"
      ? { source: "internal_source", tarball: revision.source_tarball_path ?? "", pinned }
      : { source: "github", ref: revision.repo_ref, pinned };
  }

  /**
   * An internal_source deployment starts without a revision: its archive is uploaded to the URL
   * upload-url gives for this deployment, and the PATCH naming it makes the first revision.
   */
  async function createInternalSource(input: CreateInput, tenant: Tenant, ownHosts: string[]): Promise<DeploymentView> {
    const sc = input.source_config;
    const rc = input.source_revision_config;
    if (sc.repo_url || sc.integration_id) throw sourceError("'repo_url' and 'integration_id' must be null for 'internal_source' source");
    if (sc.build_on_push) throw sourceError("'build_on_push' is only for 'github' source");
    if (rc.repo_ref || rc.image_uri) throw sourceError("'repo_ref' and 'image_uri' must be null for 'internal_source' source");
    if (rc.source_tarball_path)
      throw sourceError(
        "'source_tarball_path' cannot be given on create: upload the archive to the URL POST /v2/deployments/{id}/upload-url returns, then PATCH the deployment with it",
      );
    if (input.secret_references?.length) throw sourceError("'secret_references' are only for 'external_docker' source deployments");
    checkSecrets(input.secrets);
    const row = newDeployment(newId(), input, tenant, ownHosts, { source: "internal_source", repo_url: "", integration_id: null, build_on_push: false });
    return view(await store.createDeployment(row, undefined));
  }

  /** The PATCH fields that say what a new revision builds, checked against the deployment's source. */
  function revisionSourceOf(deployment: DeploymentRecord, latest: RevisionRecord | undefined, input: PatchInput): RevisionSource | undefined {
    const sc = input.source_config ?? {};
    const rc = input.source_revision_config ?? {};
    const asked = input.revision_source ?? deployment.source;
    if (asked === "internal_docker") throw noRegistry();
    if (asked !== deployment.source)
      throw sourceError(
        `'revision_source' '${asked}' does not match the deployment's source '${deployment.source}'; Gantry builds each deployment from one kind of source`,
      );
    if (rc.image_uri) throw sourceError(`'image_uri' must be null for '${deployment.source}' source`);
    if (deployment.source === "github") {
      if (rc.source_tarball_path) throw sourceError("'image_uri' and 'source_tarball_path' must be null for 'github' source");
      const ref = rc.repo_ref ?? latest?.repo_ref ?? "main";
      if ((sc.build_on_push ?? deployment.build_on_push) && isTagRef(ref)) throw sourceError("'build_on_push' must be false when 'repo_ref' is a tag");
      return { source: "github", ref, pinned: null };
    }
    if (rc.repo_ref) throw sourceError("'repo_ref' must be null for 'internal_source' source");
    if (sc.build_on_push) throw sourceError("'build_on_push' is only for 'github' source");
    if (rc.source_tarball_path && !deps.archives.pathOf(deployment.id, rc.source_tarball_path))
      throw sourceError(
        `'source_revision_config.source_tarball_path' must be an object_path that POST /v2/deployments/${deployment.id}/upload-url returned, after the archive was uploaded to its upload_url`,
      );
    const tarball = rc.source_tarball_path ?? latest?.source_tarball_path;
    return tarball ? { source: "internal_source", tarball, pinned: null } : undefined;
  }

  return {
    /** `ownHosts`: the control plane's own addresses, which no deployment may take as its custom_url. */
    async create(input: CreateInput, tenant: Tenant, ownHosts: string[] = []): Promise<DeploymentView> {
      if (input.source === "internal_docker") throw noRegistry();
      if (input.source === "internal_source") return createInternalSource(input, tenant, ownHosts);
      if (input.source !== "github") throw unsupportedSource(input.source);
      const sc = input.source_config;
      const rc = input.source_revision_config;
      if (!sc.repo_url) throw sourceError("'source_config.repo_url' is required for 'github' source");
      const refused = await checkRepoUrl(sc.repo_url, deps.repoPolicy);
      if (refused) throw new ValidationFailure([{ loc: ["body", "source_config", "repo_url"], msg: refused, type: "value_error" }]);
      if (!rc.repo_ref) throw sourceError("'source_revision_config.repo_ref' is required for 'github' source");
      if (!rc.langgraph_config_path) throw sourceError("'source_revision_config.langgraph_config_path' is required for 'github' source");
      if (rc.image_uri || rc.source_tarball_path) throw sourceError("'image_uri' and 'source_tarball_path' must be null for 'github' source");
      if (input.secret_references?.length) throw sourceError("'secret_references' are only for 'external_docker' source deployments");
      if (sc.build_on_push && isTagRef(rc.repo_ref)) throw sourceError("'build_on_push' must be false when 'repo_ref' is a tag");
      checkSecrets(input.secrets);
      const id = newId();
      const created = await store.createDeployment(
        newDeployment(id, input, tenant, ownHosts, {
          source: "github",
          repo_url: sc.repo_url,
          integration_id: sc.integration_id ?? null,
          build_on_push: sc.build_on_push ?? false,
        }),
        newRevision(id, { source: "github", ref: rc.repo_ref, pinned: null }, rc.langgraph_config_path, input.secrets),
      );
      deps.changed();
      return view(created);
    },

    /** upload-url, and the upload itself: only an internal_source deployment not being deleted takes an archive. */
    async acceptsUpload(id: string, tenant: Tenant): Promise<void> {
      const deployment = await visible(id, tenant);
      if (deployment.source !== "internal_source")
        throw sourceError(`upload-url is only available for 'internal_source' source deployments; Deployment ID ${id} is '${deployment.source}'`);
      if (deployment.status === "AWAITING_DELETE") throw new GantryError("conflict", `Deployment ID ${id} is being deleted.`);
    },

    /** push-token serves internal_docker, which needs a registry Gantry does not have. */
    async pushToken(id: string, tenant: Tenant): Promise<never> {
      await visible(id, tenant);
      throw noRegistry();
    },

    async get(id: string, tenant: Tenant): Promise<DeploymentView> {
      return view(await visible(id, tenant));
    },

    async list(input: ListDeploymentsInput, tenant: Tenant): Promise<DeploymentView[]> {
      if (input.matchesNothing) return [];
      const rows = await store.listDeployments(
        {
          ...(tenant !== undefined ? { tenant_id: tenant } : {}),
          ...(input.name_contains !== undefined ? { name_contains: input.name_contains } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
          ...(input.deployment_type !== undefined ? { deployment_type: input.deployment_type } : {}),
          ...(input.deployment_ids !== undefined ? { ids: input.deployment_ids } : {}),
        },
        input.limit,
        input.offset,
      );
      const views = await Promise.all(rows.map(view));
      // "Reconciled" here means the live revision is the latest one.
      if (input.remote_reconciled === undefined) return views;
      return views.filter((v) => (v.deployment.active_revision_id === v.deployment.latest_revision_id) === input.remote_reconciled);
    },

    /** POST .../revisions: like a PATCH of the revision fields, but a revision is always made. */
    async createRevision(id: string, input: PatchInput, tenant: Tenant, ownHosts: string[] = []): Promise<RevisionRecord> {
      const { deployment } = await this.patch(id, input, tenant, ownHosts, true);
      return (await store.getRevision(id, deployment.latest_revision_id!))!;
    },

    async patch(id: string, input: PatchInput, tenant: Tenant, ownHosts: string[] = [], alwaysRevise = false): Promise<DeploymentView> {
      const deployment = await visible(id, tenant);
      if (deployment.status === "AWAITING_DELETE") throw new GantryError("conflict", `Deployment ID ${id} is being deleted.`);
      const sc = input.source_config ?? {};
      const rc = input.source_revision_config ?? {};
      refuseChange("name", input.name, deployment.name);
      refuseChange("source", input.source, deployment.source);
      refuseChange("source_config.repo_url", sc.repo_url, deployment.repo_url);
      refuseChange("source_config.integration_id", sc.integration_id, deployment.integration_id);
      refuseChange("source_config.deployment_type", sc.deployment_type, deployment.deployment_type);
      if (sc.listener_id) throw sourceError("'source_config.listener_id' cannot be changed (PATCH)");
      if (input.secret_references?.length) throw sourceError("'secret_references' are only for 'external_docker' source deployments");

      // A change of address only moves the routing: no new revision.
      const custom = sc.custom_url === "" ? null : sc.custom_url != null ? customAddress(sc.custom_url, ownHosts) : undefined;

      const latest = deployment.latest_revision_id ? await store.getRevision(id, deployment.latest_revision_id) : undefined;
      const from = revisionSourceOf(deployment, latest, input);

      const previousSecrets = latest ? cipher.open(latest.secrets_sealed, latest.id) : [];
      let secrets = previousSecrets;
      if (input.secrets) {
        checkSecrets(input.secrets);
        secrets = input.secrets.map((s) => (s.value === SECRET_MASK ? (previousSecrets.find((p) => p.name === s.name) ?? s) : s));
      }
      // Spec §6.3: a new revision iff a revision field, the secrets or the resource spec is given.
      const wantsRevision = alwaysRevise || Boolean(rc.repo_ref || rc.langgraph_config_path || rc.source_tarball_path || input.secrets || sc.resource_spec);
      if (wantsRevision && !from)
        throw sourceError(
          `no source archive yet: upload one to the URL POST /v2/deployments/${id}/upload-url returns and name its object_path in 'source_revision_config.source_tarball_path'`,
        );
      const revision =
        wantsRevision && from ? newRevision(id, from, rc.langgraph_config_path ?? latest?.langgraph_config_path ?? "langgraph.json", secrets) : undefined;
      const updated = await store.updateDeployment(
        id,
        {
          ...(sc.build_on_push != null ? { build_on_push: sc.build_on_push } : {}),
          ...(sc.install_command !== undefined ? { install_command: sc.install_command } : {}),
          ...(sc.build_command !== undefined ? { build_command: sc.build_command } : {}),
          ...(sc.resource_spec ? { resource_spec: sc.resource_spec } : {}),
          ...(custom !== undefined ? { custom_url: custom?.url ?? null, custom_host: custom?.host ?? null } : {}),
        },
        revision,
      );
      if (revision) deps.changed();
      return view(updated);
    },

    async delete(id: string, tenant: Tenant, force: boolean): Promise<void> {
      const deployment = await visible(id, tenant);
      if (force) {
        if (deployment.status !== "AWAITING_DELETE") {
          throw new GantryError(
            "malformed",
            `force=true only removes a deployment already in AWAITING_DELETE; delete Deployment ID ${id} without force first.`,
          );
        }
        await store.purgeDeployment(id);
      } else {
        await store.markDeleting(id);
      }
      deps.changed();
    },

    /** A new revision with the given one's ref, config path, secrets and commit: a rollback when it is older. */
    async redeploy(id: string, revisionId: string, tenant: Tenant): Promise<DeploymentView> {
      const deployment = await visible(id, tenant);
      if (deployment.status === "AWAITING_DELETE") throw new GantryError("conflict", `Deployment ID ${id} is being deleted.`);
      const source = await store.getRevision(id, revisionId);
      if (!source) throw notFound(`Revision ID ${revisionId} of Deployment ID ${id} not found.`);
      const secrets = cipher.open(source.secrets_sealed, source.id);
      const revision = newRevision(id, sameSource(source, source.repo_commit_sha ?? source.pinned_commit_sha), source.langgraph_config_path, secrets);
      const updated = await store.updateDeployment(id, {}, revision);
      deps.changed();
      return view(updated);
    },

    /** build_on_push: a new revision of the latest one's ref and config, pinned to the commit the ref moved to. */
    async recordPush(id: string, sha: string): Promise<void> {
      const deployment = await store.getDeployment(id);
      if (!deployment || deployment.status === "AWAITING_DELETE" || !deployment.latest_revision_id) return;
      const latest = await store.getRevision(id, deployment.latest_revision_id);
      if (!latest) return;
      const secrets = cipher.open(latest.secrets_sealed, latest.id);
      await store.updateDeployment(id, {}, newRevision(id, sameSource(latest, sha), latest.langgraph_config_path, secrets));
      deps.changed();
    },

    async listRevisions(id: string, tenant: Tenant, statuses: RevisionStatus[] | undefined, limit: number, offset: number): Promise<RevisionRecord[]> {
      await visible(id, tenant);
      return store.listRevisions(id, statuses, limit, offset);
    },

    async getRevision(id: string, revisionId: string, tenant: Tenant): Promise<RevisionRecord> {
      await visible(id, tenant);
      const revision = await store.getRevision(id, revisionId);
      if (!revision) throw notFound(`Revision ID ${revisionId} of Deployment ID ${id} not found.`);
      return revision;
    },

    async logs(id: string, revisionId: string, tenant: Tenant, input: LogsInput): Promise<LogPage> {
      await this.getRevision(id, revisionId, tenant);
      return logPage(await store.readLogs(revisionId, logQuery(input)), input.limit);
    },

    /** The deploy (or build) log lines of all a deployment's revisions together: `deploy logs` without a revision. */
    async deploymentLogs(id: string, tenant: Tenant, input: LogsInput): Promise<LogPage> {
      await visible(id, tenant);
      return logPage(await store.readDeploymentLogs(id, logQuery(input)), input.limit);
    },
  };
}

export interface LogPage {
  logs: LogRecord[];
  next_offset: string | null;
}

function logQuery(input: LogsInput): LogQuery {
  let after: number | undefined;
  if (input.offset !== undefined) {
    after = Number(input.offset);
    if (!/^\d+$/.test(input.offset)) throw new GantryError("invalid", `offset '${input.offset}' is not a cursor this server returned in next_offset`);
  }
  return {
    type: input.type,
    order: input.order,
    limit: input.limit,
    ...(after !== undefined ? { after } : {}),
    ...(input.level !== undefined ? { level: input.level } : {}),
    ...(input.query !== undefined ? { query: input.query } : {}),
    ...(input.start_time !== undefined ? { start_ms: Date.parse(input.start_time) } : {}),
    ...(input.end_time !== undefined ? { end_ms: Date.parse(input.end_time) } : {}),
  };
}

/** A full page may have more after it; the cursor is the last id returned. */
const logPage = (logs: LogRecord[], limit: number): LogPage => ({ logs, next_offset: logs.length === limit ? String(logs.at(-1)!.id) : null });

function checkSecrets(secrets: Secret[]): void {
  const seen = new Set<string>();
  for (const [i, secret] of secrets.entries()) {
    if (RESERVED_SECRET_NAMES.has(secret.name) || CONTROL_PLANE_VARIABLES.includes(secret.name)) {
      throw new GantryError("malformed", `Secret name '${secret.name}' is reserved and cannot be set on a deployment.`);
    }
    if (seen.has(secret.name)) throw new GantryError("invalid", `secrets[${i}].name '${secret.name}' appears more than once.`);
    seen.add(secret.name);
  }
}

/** A deployment's own address; undefined when none is given. */
/** The row a create writes: the source decides the repository fields, the request the rest. */
function newDeployment(
  id: string,
  input: CreateInput,
  tenant: Tenant,
  ownHosts: string[],
  source: Pick<DeploymentRecord, "source" | "repo_url" | "integration_id" | "build_on_push">,
): Parameters<ControlPlaneStore["createDeployment"]>[0] {
  const sc = input.source_config;
  const custom = customAddress(sc.custom_url, ownHosts);
  return {
    id,
    tenant_id: tenant ?? DEFAULT_TENANT,
    name: input.name,
    ...source,
    deployment_type: sc.deployment_type ?? "dev",
    install_command: sc.install_command ?? null,
    build_command: sc.build_command ?? null,
    resource_spec: sc.resource_spec ?? null,
    custom_url: custom?.url ?? null,
    custom_host: custom?.host ?? null,
    status: "AWAITING_DATABASE",
  };
}

function customAddress(text: string | null | undefined, ownHosts: string[]): CustomUrl | undefined {
  if (!text) return undefined;
  const parsed = parseCustomUrl(text);
  if ("error" in parsed) throw new ValidationFailure([{ loc: ["body", "source_config", "custom_url"], msg: parsed.error, type: "value_error" }]);
  const name = bareHost(parsed.host);
  // Whatever the port: on any of its own names the control plane serves its dashboard and /v2.
  if (isLoopbackHost(name) || ownHosts.some((own) => bareHost(own) === name)) {
    throw new ValidationFailure([
      {
        loc: ["body", "source_config", "custom_url"],
        msg: `${parsed.host} is an address of the control plane itself (or of this machine); a deployment needs a host of its own`,
        type: "value_error",
      },
    ]);
  }
  return parsed;
}

function refuseChange(field: string, given: string | null | undefined, current: string | null): void {
  if (given !== undefined && given !== null && given !== current) {
    throw new GantryError("malformed", `'${field}' cannot be changed (PATCH): it is '${current ?? "null"}', the request asks for '${given}'.`);
  }
}

const sourceError = (what: string) => new GantryError("malformed", `Source configuration error: ${what}`);

/** The official CLI shows this detail as it is when its local-build path (internal_docker) asks. */
export const NO_REGISTRY_DETAIL =
  "Gantry's control plane has no image registry, so source 'internal_docker' (an image built locally and pushed by the CLI) is not available: " +
  "deploy with 'langgraph deploy --remote' (source 'internal_source'), which uploads the project and builds it on the control plane.";

const noRegistry = () => new GantryError("malformed", NO_REGISTRY_DETAIL);

const unsupportedSource = (source: string) =>
  new GantryError(
    "malformed",
    `Source '${source}' is not supported by Gantry's control plane; use 'github' with any URL git can clone (https, ssh, file:// or a local path), or 'internal_source' (an uploaded archive: 'langgraph deploy --remote').`,
  );
