// The control plane's state in one embedded SQLite file (WAL), migrated on open. One control-plane
// process owns it; every multi-row change is one transaction.
import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { GantryError } from "../../../errors.js";
import { migrateSqlite } from "../../../storage/sqlite/migrate.js";
import type { ControlPlaneStore, DeploymentFilter, LogQuery, NewRevision } from "../ports.js";
import type { DeploymentRecord, LogRecord, RevisionRecord } from "../records.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

const DEPLOYMENT_COLUMNS =
  "id, tenant_id, name, source, deployment_type, repo_url, integration_id, build_on_push, install_command, build_command, resource_spec, custom_url, custom_host, status, latest_revision_id, active_revision_id, created_at, updated_at";
const REVISION_COLUMNS =
  "id, deployment_id, seq, status, source, repo_ref, langgraph_config_path, repo_commit_sha, pinned_commit_sha, source_tarball_path, secrets_sealed, secret_names, created_at, updated_at";

type Row = Record<string, unknown>;

function rowToDeployment(row: Row): DeploymentRecord {
  return {
    ...(row as unknown as DeploymentRecord),
    build_on_push: row.build_on_push === 1,
    resource_spec: row.resource_spec === null ? null : (JSON.parse(row.resource_spec as string) as Record<string, unknown>),
  };
}

function rowToRevision(row: Row): RevisionRecord {
  return { ...(row as unknown as RevisionRecord), secret_names: JSON.parse(row.secret_names as string) as string[] };
}

const now = () => new Date().toISOString();

/** A unique index said no: the name (per tenant) or the custom host is taken. */
function uniqueConflict(err: unknown, wanted: { name?: string; custom_url?: string | null }): GantryError | undefined {
  if ((err as { code?: string }).code !== "SQLITE_CONSTRAINT_UNIQUE") return undefined;
  if ((err as Error).message.includes("custom_host")) return new GantryError("conflict", `Another deployment already uses the address ${wanted.custom_url}.`);
  return new GantryError("conflict", `A deployment named '${wanted.name}' already exists.`);
}

export function openSqliteControlPlaneStore(file: string): ControlPlaneStore & { migrated: string[] } {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  const migrated = migrateSqlite(db, MIGRATIONS_DIR);

  const getDeployment = db.prepare(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE id = ?`);
  const insertRevision = db.prepare(
    `INSERT INTO revisions (${REVISION_COLUMNS}) VALUES (@id, @deployment_id, @seq, @status, @source, @repo_ref, @langgraph_config_path, NULL, @pinned_commit_sha, @source_tarball_path, @secrets_sealed, @secret_names, @created_at, @updated_at)`,
  );
  const nextSeq = db.prepare("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM revisions WHERE deployment_id = ?");

  const addRevision = (revision: NewRevision, at: string) => {
    const { seq } = nextSeq.get(revision.deployment_id) as { seq: number };
    insertRevision.run({
      ...revision,
      seq,
      // The API records a revision as QUEUED at once: CREATING has no work of its own here.
      status: "QUEUED",
      secret_names: JSON.stringify(revision.secret_names),
      created_at: at,
      updated_at: at,
    });
    db.prepare("UPDATE deployments SET latest_revision_id = ?, updated_at = ? WHERE id = ?").run(revision.id, at, revision.deployment_id);
  };

  const create = db.transaction((deployment: Parameters<ControlPlaneStore["createDeployment"]>[0], revision: NewRevision | undefined) => {
    const at = now();
    try {
      db.prepare(
        `INSERT INTO deployments (${DEPLOYMENT_COLUMNS}) VALUES (@id, @tenant_id, @name, @source, @deployment_type, @repo_url, @integration_id, @build_on_push, @install_command, @build_command, @resource_spec, @custom_url, @custom_host, @status, NULL, NULL, @created_at, @updated_at)`,
      ).run({
        ...deployment,
        build_on_push: deployment.build_on_push ? 1 : 0,
        resource_spec: deployment.resource_spec === null ? null : JSON.stringify(deployment.resource_spec),
        created_at: at,
        updated_at: at,
      });
    } catch (err) {
      throw uniqueConflict(err, deployment) ?? err;
    }
    if (revision) addRevision(revision, at);
  });

  const update = db.transaction((id: string, changes: Parameters<ControlPlaneStore["updateDeployment"]>[1], revision?: NewRevision) => {
    const at = now();
    const sets: string[] = ["updated_at = @updated_at"];
    const values: Record<string, unknown> = { id, updated_at: at };
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      sets.push(`${key} = @${key}`);
      values[key] = key === "build_on_push" ? (value ? 1 : 0) : key === "resource_spec" && value !== null ? JSON.stringify(value) : value;
    }
    try {
      db.prepare(`UPDATE deployments SET ${sets.join(", ")} WHERE id = @id`).run(values);
    } catch (err) {
      throw uniqueConflict(err, changes) ?? err;
    }
    if (revision) addRevision(revision, at);
  });

  const promote = db.transaction((deploymentId: string, revisionId: string) => {
    const at = now();
    db.prepare("UPDATE revisions SET status = 'DEPLOYED', updated_at = ? WHERE id = ? AND deployment_id = ?").run(at, revisionId, deploymentId);
    db.prepare(
      "UPDATE deployments SET active_revision_id = ?, status = CASE WHEN status = 'AWAITING_DATABASE' THEN 'READY' ELSE status END, updated_at = ? WHERE id = ?",
    ).run(revisionId, at, deploymentId);
  });

  const mustGet = (id: string): DeploymentRecord => {
    const row = getDeployment.get(id) as Row | undefined;
    if (!row) throw new GantryError("not_found", `Deployment ID ${id} not found.`);
    return rowToDeployment(row);
  };

  return {
    migrated,
    async createDeployment(deployment, revision) {
      create(deployment, revision);
      return mustGet(deployment.id);
    },
    async getDeployment(id) {
      const row = getDeployment.get(id) as Row | undefined;
      return row ? rowToDeployment(row) : undefined;
    },
    async listDeployments(filter: DeploymentFilter, limit, offset) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.tenant_id !== undefined) where.push("tenant_id = ?"), params.push(filter.tenant_id);
      if (filter.name_contains !== undefined) where.push("instr(name, ?) > 0"), params.push(filter.name_contains);
      if (filter.status !== undefined) where.push("status = ?"), params.push(filter.status);
      if (filter.deployment_type !== undefined) where.push("deployment_type = ?"), params.push(filter.deployment_type);
      if (filter.ids !== undefined) {
        where.push(`id IN (${filter.ids.map(() => "?").join(", ") || "NULL"})`);
        params.push(...filter.ids);
      }
      const sql = `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`;
      return (db.prepare(sql).all(...params, limit, offset) as Row[]).map(rowToDeployment);
    },
    async findByCustomHost(hosts) {
      if (hosts.length === 0) return undefined;
      const row = db
        .prepare(
          `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE custom_host IN (${hosts.map(() => "?").join(", ")}) AND status <> 'AWAITING_DELETE' LIMIT 1`,
        )
        .get(...hosts) as Row | undefined;
      return row ? rowToDeployment(row) : undefined;
    },
    async allDeployments() {
      return (db.prepare(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY created_at`).all() as Row[]).map(rowToDeployment);
    },
    async updateDeployment(id, changes, revision) {
      update(id, changes, revision);
      return mustGet(id);
    },
    async markDeleting(id) {
      db.prepare("UPDATE deployments SET status = 'AWAITING_DELETE', updated_at = ? WHERE id = ?").run(now(), id);
    },
    async purgeDeployment(id) {
      db.prepare("DELETE FROM deployments WHERE id = ?").run(id);
    },
    async getRevision(deploymentId, revisionId) {
      const row = db.prepare(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE id = ? AND deployment_id = ?`).get(revisionId, deploymentId) as Row | undefined;
      return row ? rowToRevision(row) : undefined;
    },
    async listRevisions(deploymentId, statuses, limit, offset) {
      const filter = statuses?.length ? `AND status IN (${statuses.map(() => "?").join(", ")})` : "";
      const rows = db
        .prepare(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE deployment_id = ? ${filter} ORDER BY seq DESC LIMIT ? OFFSET ?`)
        .all(deploymentId, ...(statuses ?? []), limit, offset) as Row[];
      return rows.map(rowToRevision);
    },
    async setRevisionStatus(revisionId, status, from) {
      const result = db
        .prepare(`UPDATE revisions SET status = ?, updated_at = ? WHERE id = ? AND status IN (${from.map(() => "?").join(", ")})`)
        .run(status, now(), revisionId, ...from);
      return result.changes === 1;
    },
    async setRevisionCommit(revisionId, sha) {
      db.prepare("UPDATE revisions SET repo_commit_sha = ?, updated_at = ? WHERE id = ?").run(sha, now(), revisionId);
    },
    async promote(deploymentId, revisionId) {
      promote(deploymentId, revisionId);
    },
    async appendLog(revisionId, type, level, message) {
      db.prepare(
        "INSERT INTO revision_logs (revision_id, type, level, message, timestamp) SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM revisions WHERE id = ?)",
      ).run(revisionId, type, level, message, Date.now(), revisionId);
    },
    async readLogs(revisionId, query: LogQuery) {
      return readLogs("revision_id = ?", revisionId, query);
    },
    async readDeploymentLogs(deploymentId, query: LogQuery) {
      return readLogs("revision_id IN (SELECT id FROM revisions WHERE deployment_id = ?)", deploymentId, query);
    },
    async close() {
      db.close();
    },
  };

  function readLogs(scope: string, scopeValue: string, query: LogQuery): LogRecord[] {
    const where = [scope, "type = ?"];
    const params: unknown[] = [scopeValue, query.type];
    if (query.after !== undefined) where.push(query.order === "asc" ? "id > ?" : "id < ?"), params.push(query.after);
    if (query.level !== undefined) where.push("level = ?"), params.push(query.level);
    if (query.query !== undefined) where.push("instr(lower(message), lower(?)) > 0"), params.push(query.query);
    if (query.start_ms !== undefined) where.push("timestamp >= ?"), params.push(query.start_ms);
    if (query.end_ms !== undefined) where.push("timestamp <= ?"), params.push(query.end_ms);
    const sql = `SELECT id, revision_id, type, level, message, timestamp FROM revision_logs WHERE ${where.join(" AND ")} ORDER BY id ${query.order === "asc" ? "ASC" : "DESC"} LIMIT ?`;
    return db.prepare(sql).all(...params, query.limit) as LogRecord[];
  }
}
