// AssistantRepo on PostgreSQL. A write that touches an assistant and its versions is one statement,
// or one transaction holding the assistant's row lock, so concurrent updates get distinct versions.
import type { Pool } from "pg";
import type { Assistant, AssistantVersion, JsonObject } from "../records.js";
import type { AssistantFilter, AssistantPatch, AssistantRepo, AssistantSortField, NewAssistant } from "../ports.js";
import { hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { andAuth, authFilterSql, jsonParam, param, run, transaction } from "./sql-helpers.js";

const COLUMN_NAMES = ["assistant_id", "graph_id", "config", "context", "metadata", "version", "name", "description", "created_at", "updated_at"];
const COLUMNS = COLUMN_NAMES.join(", ");
/** The columns of `assistants AS a`, for statements that also read assistant_versions. */
const A_COLUMNS = COLUMN_NAMES.map((c) => `a.${c}`).join(", ");
const VERSION_COLUMNS = "assistant_id, version, graph_id, config, context, metadata, name, description, created_at";

const SORT_COLUMNS: Record<AssistantSortField, string> = {
  assistant_id: "assistant_id",
  graph_id: "graph_id",
  name: "name",
  created_at: "created_at",
  updated_at: "updated_at",
};

interface VersionRow {
  assistant_id: string;
  graph_id: string;
  config: JsonObject;
  context: JsonObject;
  metadata: JsonObject;
  version: number;
  name: string;
  description: string | null;
  created_at: Date;
}

interface AssistantRow extends VersionRow {
  updated_at: Date;
}

function rowToVersion(row: VersionRow): AssistantVersion {
  return {
    assistant_id: row.assistant_id,
    graph_id: row.graph_id,
    config: row.config,
    context: row.context,
    metadata: row.metadata,
    version: row.version,
    name: row.name,
    description: row.description,
    created_at: row.created_at.toISOString(),
  };
}

function rowToAssistant(row: AssistantRow): Assistant {
  return { ...rowToVersion(row), updated_at: row.updated_at.toISOString() };
}

/** Appends the filter's values to `values` and returns the WHERE clause ("" for no filter). */
function whereClause(filter: AssistantFilter, values: unknown[]): string {
  const parts: string[] = [];
  if (filter.metadata && Object.keys(filter.metadata).length > 0) parts.push(`metadata @> ${jsonParam(values, filter.metadata)}`);
  if (filter.graph_id !== undefined) parts.push(`graph_id = ${param(values, filter.graph_id)}`);
  // The column sorts byte-wise (COLLATE "C"), whose lower() folds ASCII only; the database's
  // default collation folds every letter, so "ärger" finds "Ärger".
  if (filter.name !== undefined) parts.push(`strpos(lower(name COLLATE "default"), ${param(values, filter.name.toLowerCase())}) > 0`);
  if (hasAuthFilter(filter.auth)) parts.push(authFilterSql("metadata", filter.auth, values));
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

export function postgresAssistants(pool: Pool): AssistantRepo {
  async function count(filter: AssistantFilter): Promise<number> {
    const values: unknown[] = [];
    const { rows } = await run<{ n: string }>(pool, `SELECT COUNT(*) AS n FROM assistants ${whereClause(filter, values)}`, values);
    return Number(rows[0]?.n ?? 0);
  }

  return {
    async create(input: NewAssistant) {
      const now = new Date();
      const { rows } = await run<AssistantRow>(
        pool,
        `WITH inserted AS (
           INSERT INTO assistants (${COLUMNS}) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb, 1, $6, $7, $8, $8)
           ON CONFLICT (assistant_id) DO NOTHING
           RETURNING ${COLUMNS}
         ), first_version AS (
           INSERT INTO assistant_versions (${VERSION_COLUMNS})
           SELECT ${VERSION_COLUMNS} FROM inserted
         )
         SELECT ${COLUMNS} FROM inserted`,
        [
          input.assistant_id,
          input.graph_id,
          JSON.stringify(input.config),
          JSON.stringify(input.context),
          JSON.stringify(input.metadata),
          input.name,
          input.description,
          now,
        ],
      );
      return rows[0] ? rowToAssistant(rows[0]) : null;
    },

    async get(assistantId, auth) {
      const values: unknown[] = [assistantId];
      const { rows } = await run<AssistantRow>(pool, `SELECT ${COLUMNS} FROM assistants WHERE assistant_id = $1${andAuth(auth, values)}`, values);
      return rows[0] ? rowToAssistant(rows[0]) : null;
    },

    async update(assistantId: string, patch: AssistantPatch, auth?: AuthFilter) {
      return transaction(pool, async (client) => {
        const lockValues: unknown[] = [assistantId];
        const { rows } = await run<AssistantRow>(
          client,
          `SELECT ${COLUMNS} FROM assistants WHERE assistant_id = $1${andAuth(auth, lockValues)} FOR UPDATE`,
          lockValues,
        );
        const current = rows[0];
        if (!current) return null;
        // Read after the row lock, in a statement of its own: under READ COMMITTED it then sees the
        // version a concurrent update committed while this one waited.
        const max = await run<{ v: number | null }>(client, "SELECT MAX(version) AS v FROM assistant_versions WHERE assistant_id = $1", [assistantId]);
        const version = (max.rows[0]?.v ?? 0) + 1;
        const now = new Date();
        const next = {
          graph_id: patch.graph_id ?? current.graph_id,
          config: patch.config ?? current.config,
          context: patch.context ?? current.context,
          metadata: patch.metadata !== undefined ? { ...current.metadata, ...patch.metadata } : current.metadata,
          name: patch.name ?? current.name,
          description: patch.description !== undefined ? patch.description : current.description,
        };
        const updated = await run<AssistantRow>(
          client,
          `WITH new_version AS (
             INSERT INTO assistant_versions (${VERSION_COLUMNS}) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8, $9)
           )
           UPDATE assistants
           SET graph_id = $3, config = $4::jsonb, context = $5::jsonb, metadata = $6::jsonb, version = $2, name = $7, description = $8, updated_at = $9
           WHERE assistant_id = $1
           RETURNING ${COLUMNS}`,
          [
            assistantId,
            version,
            next.graph_id,
            JSON.stringify(next.config),
            JSON.stringify(next.context),
            JSON.stringify(next.metadata),
            next.name,
            next.description,
            now,
          ],
        );
        return updated.rows[0] ? rowToAssistant(updated.rows[0]) : null;
      });
    },

    async delete(assistantId, auth) {
      const values: unknown[] = [assistantId];
      const result = await run(pool, `DELETE FROM assistants WHERE assistant_id = $1${andAuth(auth, values)}`, values);
      return (result.rowCount ?? 0) > 0;
    },

    async search(filter, sort, page) {
      const values: unknown[] = [];
      const where = whereClause(filter, values);
      const direction = sort.order === "asc" ? "ASC" : "DESC";
      const { rows } = await run<AssistantRow>(
        pool,
        `SELECT ${COLUMNS} FROM assistants ${where}
         ORDER BY ${SORT_COLUMNS[sort.by]} ${direction}, assistant_id ${direction}
         LIMIT ${param(values, page.limit)} OFFSET ${param(values, page.offset)}`,
        values,
      );
      const items = rows.map(rowToAssistant);
      // A short, non-empty page is the last one, so the total needs no second query.
      const total = items.length > 0 && items.length < page.limit ? page.offset + items.length : await count(filter);
      return { items, total };
    },

    count,

    async listVersions(assistantId, filter, page, auth) {
      const existsValues: unknown[] = [assistantId];
      const exists = await run(pool, `SELECT 1 FROM assistants WHERE assistant_id = $1${andAuth(auth, existsValues)}`, existsValues);
      if (exists.rowCount === 0) return null;
      const values: unknown[] = [assistantId];
      const contains = filter.metadata && Object.keys(filter.metadata).length > 0 ? `AND metadata @> ${jsonParam(values, filter.metadata)}` : "";
      const { rows } = await run<VersionRow>(
        pool,
        `SELECT ${VERSION_COLUMNS} FROM assistant_versions WHERE assistant_id = $1 ${contains}
         ORDER BY version DESC LIMIT ${param(values, page.limit)} OFFSET ${param(values, page.offset)}`,
        values,
      );
      return rows.map(rowToVersion);
    },

    async setLatest(assistantId, version, auth) {
      const values: unknown[] = [assistantId, version, new Date()];
      const { rows } = await run<AssistantRow>(
        pool,
        `UPDATE assistants AS a
         SET graph_id = v.graph_id, config = v.config, context = v.context, metadata = v.metadata,
             version = v.version, name = v.name, description = v.description, updated_at = $3
         FROM assistant_versions AS v
         WHERE a.assistant_id = $1 AND v.assistant_id = a.assistant_id AND v.version = $2${andAuth(auth, values, "a.metadata")}
         RETURNING ${A_COLUMNS}`,
        values,
      );
      return rows[0] ? rowToAssistant(rows[0]) : null;
    },
  };
}
