// AssistantRepo on SQLite. Writes that touch the assistant and its versions run in one
// transaction; better-sqlite3 is synchronous, so each method is atomic within the process.
import type Database from "better-sqlite3";
import type { Assistant, AssistantVersion } from "../records.js";
import type { AssistantFilter, AssistantPatch, AssistantRepo, AssistantSortField, NewAssistant, Page, SortOrder } from "../ports.js";
import { hasAuthFilter, type AuthFilter } from "../auth-filter.js";
import { authFilterSql, jsonContains, type SqlFragment } from "./json-filter.js";
import { parseJson, statementCache } from "./sql-helpers.js";

const COLUMNS = "assistant_id, graph_id, config, context, metadata, version, name, description, created_at, updated_at";
const VERSION_COLUMNS = "assistant_id, version, graph_id, config, context, metadata, name, description, created_at";

const SORT_COLUMNS: Record<AssistantSortField, string> = {
  assistant_id: "assistant_id",
  graph_id: "graph_id",
  name: "name",
  created_at: "created_at",
  updated_at: "updated_at",
};

interface AssistantRow {
  assistant_id: string;
  graph_id: string;
  config: string;
  context: string;
  metadata: string;
  version: number;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

function rowToAssistant(row: AssistantRow): Assistant {
  return {
    assistant_id: row.assistant_id,
    graph_id: row.graph_id,
    config: parseJson(row.config),
    context: parseJson(row.context),
    metadata: parseJson(row.metadata),
    version: row.version,
    name: row.name,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function rowToVersion(row: Omit<AssistantRow, "updated_at">): AssistantVersion {
  return {
    assistant_id: row.assistant_id,
    graph_id: row.graph_id,
    config: parseJson(row.config),
    context: parseJson(row.context),
    metadata: parseJson(row.metadata),
    version: row.version,
    name: row.name,
    description: row.description,
    created_at: row.created_at,
  };
}

function whereClause(filter: AssistantFilter): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter.metadata && Object.keys(filter.metadata).length > 0) {
    const contains = jsonContains("metadata", filter.metadata);
    parts.push(contains.sql);
    params.push(...contains.params);
  }
  if (filter.graph_id !== undefined) {
    parts.push("graph_id = ?");
    params.push(filter.graph_id);
  }
  if (filter.name !== undefined) {
    // casefold() is registered on the connection: SQLite's own LIKE and lower() fold ASCII only.
    parts.push("instr(casefold(name), ?) > 0");
    params.push(filter.name.toLowerCase());
  }
  if (hasAuthFilter(filter.auth)) {
    const auth = authFilterSql("metadata", filter.auth);
    parts.push(auth.sql);
    params.push(...auth.params);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

export function sqliteAssistants(db: Database.Database): AssistantRepo {
  const sql = statementCache(db);
  const getRow = sql(`SELECT ${COLUMNS} FROM assistants WHERE assistant_id = ?`);
  /** The assistant's row when it exists and matches the auth filter. */
  const visibleRow = (assistantId: string, auth: AuthFilter | undefined): AssistantRow | undefined => {
    if (!hasAuthFilter(auth)) return getRow.get(assistantId) as AssistantRow | undefined;
    const where = authFilterSql("metadata", auth);
    return sql(`SELECT ${COLUMNS} FROM assistants WHERE assistant_id = ? AND ${where.sql}`).get(assistantId, ...where.params) as AssistantRow | undefined;
  };
  const insertAssistant = sql(`INSERT INTO assistants (${COLUMNS}) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT (assistant_id) DO NOTHING`);
  const insertVersion = sql(`INSERT INTO assistant_versions (${VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const maxVersion = sql("SELECT MAX(version) AS v FROM assistant_versions WHERE assistant_id = ?");
  const getVersion = sql(`SELECT ${VERSION_COLUMNS} FROM assistant_versions WHERE assistant_id = ? AND version = ?`);
  const updateCurrent = sql(
    `UPDATE assistants SET graph_id = ?, config = ?, context = ?, metadata = ?, version = ?, name = ?, description = ?, updated_at = ?
     WHERE assistant_id = ?`,
  );

  const create = db.transaction((input: NewAssistant): Assistant | null => {
    const now = new Date().toISOString();
    const config = JSON.stringify(input.config);
    const context = JSON.stringify(input.context);
    const metadata = JSON.stringify(input.metadata);
    const inserted = insertAssistant.run(input.assistant_id, input.graph_id, config, context, metadata, input.name, input.description, now, now);
    if (inserted.changes === 0) return null;
    insertVersion.run(input.assistant_id, 1, input.graph_id, config, context, metadata, input.name, input.description, now);
    return rowToAssistant(getRow.get(input.assistant_id) as AssistantRow);
  });

  const update = db.transaction((assistantId: string, patch: AssistantPatch, auth: AuthFilter | undefined): Assistant | null => {
    const current = visibleRow(assistantId, auth);
    if (!current) return null;
    const now = new Date().toISOString();
    const version = ((maxVersion.get(assistantId) as { v: number | null }).v ?? 0) + 1;
    const next = {
      graph_id: patch.graph_id ?? current.graph_id,
      config: patch.config !== undefined ? JSON.stringify(patch.config) : current.config,
      context: patch.context !== undefined ? JSON.stringify(patch.context) : current.context,
      metadata: patch.metadata !== undefined ? JSON.stringify({ ...parseJson(current.metadata), ...patch.metadata }) : current.metadata,
      name: patch.name ?? current.name,
      description: patch.description !== undefined ? patch.description : current.description,
    };
    insertVersion.run(assistantId, version, next.graph_id, next.config, next.context, next.metadata, next.name, next.description, now);
    updateCurrent.run(next.graph_id, next.config, next.context, next.metadata, version, next.name, next.description, now, assistantId);
    return rowToAssistant(getRow.get(assistantId) as AssistantRow);
  });

  const setLatest = db.transaction((assistantId: string, version: number, auth: AuthFilter | undefined): Assistant | null => {
    if (!visibleRow(assistantId, auth)) return null;
    const row = getVersion.get(assistantId, version) as Omit<AssistantRow, "updated_at"> | undefined;
    if (!row) return null;
    updateCurrent.run(row.graph_id, row.config, row.context, row.metadata, version, row.name, row.description, new Date().toISOString(), assistantId);
    return rowToAssistant(getRow.get(assistantId) as AssistantRow);
  });

  return {
    async create(input) {
      return create.immediate(input);
    },
    async get(assistantId, auth) {
      const row = visibleRow(assistantId, auth);
      return row ? rowToAssistant(row) : null;
    },
    async update(assistantId, patch, auth) {
      return update.immediate(assistantId, patch, auth);
    },
    async delete(assistantId, auth) {
      if (!hasAuthFilter(auth)) return sql("DELETE FROM assistants WHERE assistant_id = ?").run(assistantId).changes > 0;
      const where = authFilterSql("metadata", auth);
      return sql(`DELETE FROM assistants WHERE assistant_id = ? AND ${where.sql}`).run(assistantId, ...where.params).changes > 0;
    },
    async search(filter, sort: { by: AssistantSortField; order: SortOrder }, page: Page) {
      const where = whereClause(filter);
      const direction = sort.order === "asc" ? "ASC" : "DESC";
      const rows = db
        .prepare(`SELECT ${COLUMNS} FROM assistants ${where.sql} ORDER BY ${SORT_COLUMNS[sort.by]} ${direction}, assistant_id ${direction} LIMIT ? OFFSET ?`)
        .all(...where.params, page.limit, page.offset) as AssistantRow[];
      const items = rows.map(rowToAssistant);
      const total = items.length > 0 && items.length < page.limit ? page.offset + items.length : await this.count(filter);
      return { items, total };
    },
    async count(filter) {
      const where = whereClause(filter);
      return (sql(`SELECT COUNT(*) AS n FROM assistants ${where.sql}`).get(...where.params) as { n: number }).n;
    },
    async listVersions(assistantId, filter, page, auth) {
      if (!visibleRow(assistantId, auth)) return null;
      const contains = filter.metadata && Object.keys(filter.metadata).length > 0 ? jsonContains("metadata", filter.metadata) : null;
      const rows = db
        .prepare(
          `SELECT ${VERSION_COLUMNS} FROM assistant_versions WHERE assistant_id = ? ${contains ? `AND ${contains.sql}` : ""}
           ORDER BY version DESC LIMIT ? OFFSET ?`,
        )
        .all(assistantId, ...(contains?.params ?? []), page.limit, page.offset) as Array<Omit<AssistantRow, "updated_at">>;
      return rows.map(rowToVersion);
    },
    async setLatest(assistantId, version, auth) {
      return setLatest.immediate(assistantId, version, auth);
    },
  };
}
