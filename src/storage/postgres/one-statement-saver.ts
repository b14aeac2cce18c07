// The official PostgresSaver, with each write made in one statement. Its put runs a transaction
// of one INSERT per changed channel plus the checkpoint's (BEGIN, n+1 statements, COMMIT), its
// putWrites one of an INSERT per write: a one-node graph's run cost 24 round trips in them. Here a
// put is one INSERT of the checkpoint with its blobs' INSERT in a CTE, and putWrites one multi-row
// INSERT; a single statement is atomic as the transaction was. Rows, columns, conflict rules and
// serialisation are the saver's own (its _dump* methods), so everything it reads back is unchanged.
import type { RunnableConfig } from "@langchain/core/runnables";
import { WRITES_IDX_MAP, type ChannelVersions, type Checkpoint, type CheckpointMetadata, type PendingWrite } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";

/** Past this many rows in one write the saver's own transaction takes over: no statement nears pg's 65,535 parameters. */
const MAX_ROWS = 1_000;

export class OneStatementPostgresSaver extends PostgresSaver {
  private readonly db: pg.Pool;
  private readonly table: { checkpoints: string; blobs: string; writes: string };

  constructor(pool: pg.Pool, schema: string) {
    super(pool, undefined, { schema });
    this.db = pool;
    const qualified = (name: string) => `"${schema}".${name}`;
    this.table = { checkpoints: qualified("checkpoints"), blobs: qualified("checkpoint_blobs"), writes: qualified("checkpoint_writes") };
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    if (Object.keys(newVersions).length > MAX_ROWS) return super.put(config, checkpoint, metadata, newVersions);
    const { thread_id, checkpoint_ns = "", checkpoint_id } = config.configurable as { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string };
    const [blobs, serializedMetadata] = await Promise.all([
      this._dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions),
      this._dumpMetadata(metadata),
    ]);
    const values: unknown[] = [thread_id, checkpoint_ns, checkpoint.id, checkpoint_id, this._dumpCheckpoint(checkpoint), serializedMetadata];
    // $1 and $2 are every blob's thread and namespace, as _dumpBlobs sets them.
    const rows = blobs.map(([, , channel, version, type, blob]) => `($1, $2, ${placeholders(values, [channel, version, type, blob])})`);
    const blobInsert = rows.length
      ? `WITH blobs AS (
           INSERT INTO ${this.table.blobs} (thread_id, checkpoint_ns, channel, version, type, blob) VALUES ${rows.join(", ")}
           ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING)\n`
      : "";
    await this.db.query(
      `${blobInsert}INSERT INTO ${this.table.checkpoints} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`,
      values,
    );
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    if (writes.length > MAX_ROWS) return super.putWrites(config, writes, taskId);
    const configurable = config.configurable as { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
    // As the saver decides: writes only to the special channels replace earlier ones, others never do.
    const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const dumped = await this._dumpWrites(configurable.thread_id, configurable.checkpoint_ns, configurable.checkpoint_id, taskId, writes);
    // The saver inserts one row after another, so of two rows with the same key the last one stays
    // when replacing and the first one otherwise; one INSERT may not touch a row twice, so only that one goes.
    const byKey = new Map<number, (typeof dumped)[number]>();
    for (const row of dumped) if (replace || !byKey.has(row[4])) byKey.set(row[4], row);
    const values: unknown[] = [];
    const rows = [...byKey.values()].map((row) => `(${placeholders(values, row)})`);
    await this.db.query(
      `INSERT INTO ${this.table.writes} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES ${rows.join(", ")}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${
         replace ? "DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob" : "DO NOTHING"
       }`,
      values,
    );
  }
}

/** Appends `row` to `values` and returns its placeholders, comma-separated. */
function placeholders(values: unknown[], row: readonly unknown[]): string {
  return row.map((value) => `$${values.push(value)}`).join(", ");
}
