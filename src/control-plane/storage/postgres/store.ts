// The control plane's state in PostgreSQL (when DATABASE_URL is set), in a schema of its own so it
// never mixes with an Agent Server's tables. A new revision locks its deployment's row first, so two
// writers (a PATCH and the build_on_push watcher) never compute the same seq.
import { fileURLToPath } from "node:url";
import pg from "pg";
import { GantryError, StartupError } from "../../../errors.js";
import { listenedClient } from "../../../storage/postgres/connection-watch.js";
import { checkSchemaName, migratePostgres } from "../../../storage/postgres/migrate.js";
import type { ControlPlaneStore, DeploymentFilter, LogQuery, NewRevision } from "../ports.js";
import type { DeploymentRecord, LogRecord, RevisionRecord } from "../records.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

const DEPLOYMENT_COLUMNS =
  "id, tenant_id, name, source, deployment_type, repo_url, integration_id, build_on_push, install_command, build_command, resource_spec, custom_url, custom_host, status, latest_revision_id, active_revision_id, created_at, updated_at";
const REVISION_COLUMNS =
  "id, deployment_id, seq, status, source, repo_ref, langgraph_config_path, repo_commit_sha, pinned_commit_sha, source_tarball_path, secrets_sealed, secret_names, created_at, updated_at";

type Row = Record<string, unknown>;
type Queryable = pg.Pool | pg.PoolClient;

const iso = (value: unknown) => (value as Date).toISOString();

function rowToDeployment(row: Row): DeploymentRecord {
  return { ...(row as unknown as DeploymentRecord), created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

function rowToRevision(row: Row): RevisionRecord {
  return { ...(row as unknown as RevisionRecord), created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

/** A unique index said no: the name (per tenant) or the custom host is taken. */
function uniqueConflict(err: unknown, wanted: { name?: string; custom_url?: string | null }): GantryError | undefined {
  const { code, constraint } = err as { code?: string; constraint?: string };
  if (code !== "23505") return undefined;
  if (constraint === "deployments_custom_host") return new GantryError("conflict", `Another deployment already uses the address ${wanted.custom_url}.`);
  return new GantryError("conflict", `A deployment named '${wanted.name}' already exists.`);
}

function rowToLog(row: Row): LogRecord {
  return { ...(row as unknown as LogRecord), id: Number(row.id), timestamp: Number(row.timestamp) };
}

export interface PostgresControlPlaneStore extends ControlPlaneStore {
  migrated: string[];
  /** Drops the store's schema and everything in it, then closes (tests). */
  dropSchemaAndClose(): Promise<void>;
}

export async function openPostgresControlPlaneStore(url: string, schemaName = "gantry_control_plane"): Promise<PostgresControlPlaneStore> {
  const schema = checkSchemaName(schemaName);
  // A connection dying, idle or checked out, must not end the process; the next statement reports it.
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 5, Client: listenedClient(pg.Client, () => {}) });
  pool.on("error", () => {});
  let migrated: string[];
  try {
    migrated = await migratePostgres(pool, { schema, dir: MIGRATIONS_DIR });
  } catch (err) {
    await pool.end();
    if (err instanceof StartupError) throw err;
    throw new StartupError(`Cannot open the control plane's PostgreSQL database: ${(err as Error).message}. Check that it runs and that DATABASE_URL is right`);
  }

  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async function addRevision(client: pg.PoolClient, revision: NewRevision, at: Date): Promise<void> {
    await client.query("SELECT id FROM deployments WHERE id = $1 FOR UPDATE", [revision.deployment_id]);
    const { rows } = await client.query<{ seq: number }>("SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM revisions WHERE deployment_id = $1", [
      revision.deployment_id,
    ]);
    await client.query(`INSERT INTO revisions (${REVISION_COLUMNS}) VALUES ($1, $2, $3, 'QUEUED', $4, $5, $6, NULL, $7, $8, $9, $10, $11, $11)`, [
      revision.id,
      revision.deployment_id,
      rows[0]!.seq,
      revision.source,
      revision.repo_ref,
      revision.langgraph_config_path,
      revision.pinned_commit_sha,
      revision.source_tarball_path,
      revision.secrets_sealed,
      JSON.stringify(revision.secret_names),
      at,
    ]);
    await client.query("UPDATE deployments SET latest_revision_id = $1, updated_at = $2 WHERE id = $3", [revision.id, at, revision.deployment_id]);
  }

  async function mustGet(db: Queryable, id: string): Promise<DeploymentRecord> {
    const { rows } = await db.query(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE id = $1`, [id]);
    if (!rows[0]) throw new GantryError("not_found", `Deployment ID ${id} not found.`);
    return rowToDeployment(rows[0]);
  }

  return {
    migrated,
    async createDeployment(d, revision) {
      return transaction(async (client) => {
        const at = new Date();
        try {
          await client.query(
            `INSERT INTO deployments (${DEPLOYMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, NULL, NULL, $15, $15)`,
            [
              d.id,
              d.tenant_id,
              d.name,
              d.source,
              d.deployment_type,
              d.repo_url,
              d.integration_id,
              d.build_on_push,
              d.install_command,
              d.build_command,
              d.resource_spec === null ? null : JSON.stringify(d.resource_spec),
              d.custom_url,
              d.custom_host,
              d.status,
              at,
            ],
          );
        } catch (err) {
          throw uniqueConflict(err, d) ?? err;
        }
        if (revision) await addRevision(client, revision, at);
        return mustGet(client, d.id);
      });
    },
    async getDeployment(id) {
      const { rows } = await pool.query(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE id = $1`, [id]);
      return rows[0] ? rowToDeployment(rows[0]) : undefined;
    },
    async listDeployments(filter: DeploymentFilter, limit, offset) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (sql: string, value: unknown) => {
        params.push(value);
        where.push(sql.replace("?", `$${params.length}`));
      };
      if (filter.tenant_id !== undefined) add("tenant_id = ?", filter.tenant_id);
      if (filter.name_contains !== undefined) add("strpos(name, ?) > 0", filter.name_contains);
      if (filter.status !== undefined) add("status = ?", filter.status);
      if (filter.deployment_type !== undefined) add("deployment_type = ?", filter.deployment_type);
      if (filter.ids !== undefined) add("id = ANY(?::uuid[])", filter.ids);
      params.push(limit, offset);
      const { rows } = await pool.query(
        `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY created_at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      );
      return rows.map(rowToDeployment);
    },
    async findByCustomHost(hosts) {
      if (hosts.length === 0) return undefined;
      const { rows } = await pool.query(
        `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE custom_host = ANY($1::text[]) AND status <> 'AWAITING_DELETE' LIMIT 1`,
        [hosts],
      );
      return rows[0] ? rowToDeployment(rows[0]) : undefined;
    },
    async allDeployments() {
      const { rows } = await pool.query(`SELECT ${DEPLOYMENT_COLUMNS} FROM deployments ORDER BY created_at`);
      return rows.map(rowToDeployment);
    },
    async updateDeployment(id, changes, revision) {
      return transaction(async (client) => {
        const at = new Date();
        const sets = ["updated_at = $1"];
        const params: unknown[] = [at];
        for (const [key, value] of Object.entries(changes)) {
          if (value === undefined) continue;
          params.push(key === "resource_spec" && value !== null ? JSON.stringify(value) : value);
          sets.push(`${key} = $${params.length}`);
        }
        params.push(id);
        try {
          await client.query(`UPDATE deployments SET ${sets.join(", ")} WHERE id = $${params.length}`, params);
        } catch (err) {
          throw uniqueConflict(err, changes) ?? err;
        }
        if (revision) await addRevision(client, revision, at);
        return mustGet(client, id);
      });
    },
    async markDeleting(id) {
      await pool.query("UPDATE deployments SET status = 'AWAITING_DELETE', updated_at = now() WHERE id = $1", [id]);
    },
    async purgeDeployment(id) {
      await pool.query("DELETE FROM deployments WHERE id = $1", [id]);
    },
    async getRevision(deploymentId, revisionId) {
      const { rows } = await pool.query(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE id = $1 AND deployment_id = $2`, [revisionId, deploymentId]);
      return rows[0] ? rowToRevision(rows[0]) : undefined;
    },
    async listRevisions(deploymentId, statuses, limit, offset) {
      const filter = statuses?.length ? "AND status = ANY($4::text[])" : "";
      const { rows } = await pool.query(
        `SELECT ${REVISION_COLUMNS} FROM revisions WHERE deployment_id = $1 ${filter} ORDER BY seq DESC LIMIT $2 OFFSET $3`,
        statuses?.length ? [deploymentId, limit, offset, statuses] : [deploymentId, limit, offset],
      );
      return rows.map(rowToRevision);
    },
    async setRevisionStatus(revisionId, status, from) {
      const result = await pool.query("UPDATE revisions SET status = $1, updated_at = now() WHERE id = $2 AND status = ANY($3::text[])", [
        status,
        revisionId,
        [...from],
      ]);
      return result.rowCount === 1;
    },
    async setRevisionCommit(revisionId, sha) {
      await pool.query("UPDATE revisions SET repo_commit_sha = $1, updated_at = now() WHERE id = $2", [sha, revisionId]);
    },
    async promote(deploymentId, revisionId) {
      await transaction(async (client) => {
        await client.query("UPDATE revisions SET status = 'DEPLOYED', updated_at = now() WHERE id = $1 AND deployment_id = $2", [revisionId, deploymentId]);
        await client.query(
          "UPDATE deployments SET active_revision_id = $1, status = CASE WHEN status = 'AWAITING_DATABASE' THEN 'READY' ELSE status END, updated_at = now() WHERE id = $2",
          [revisionId, deploymentId],
        );
      });
    },
    async appendLog(revisionId, type, level, message) {
      await pool.query(
        "INSERT INTO revision_logs (revision_id, type, level, message, timestamp) SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM revisions WHERE id = $1)",
        [revisionId, type, level, message, Date.now()],
      );
    },
    async readLogs(revisionId, query: LogQuery) {
      return readLogs("revision_id = $1", revisionId, query);
    },
    async readDeploymentLogs(deploymentId, query: LogQuery) {
      return readLogs("revision_id IN (SELECT id FROM revisions WHERE deployment_id = $1)", deploymentId, query);
    },
    async close() {
      await pool.end();
    },
    async dropSchemaAndClose() {
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };

  async function readLogs(scope: string, scopeValue: string, query: LogQuery): Promise<LogRecord[]> {
    const where = [scope, "type = $2"];
    const params: unknown[] = [scopeValue, query.type];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace("?", `$${params.length}`));
    };
    if (query.after !== undefined) add(query.order === "asc" ? "id > ?" : "id < ?", query.after);
    if (query.level !== undefined) add("level = ?", query.level);
    if (query.query !== undefined) add("strpos(lower(message), lower(?)) > 0", query.query);
    if (query.start_ms !== undefined) add("timestamp >= ?", query.start_ms);
    if (query.end_ms !== undefined) add("timestamp <= ?", query.end_ms);
    params.push(query.limit);
    const { rows } = await pool.query(
      `SELECT id, revision_id, type, level, message, timestamp FROM revision_logs WHERE ${where.join(" AND ")} ORDER BY id ${query.order === "asc" ? "ASC" : "DESC"} LIMIT $${params.length}`,
      params,
    );
    return rows.map(rowToLog);
  }
}
