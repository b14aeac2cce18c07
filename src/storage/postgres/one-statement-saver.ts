// The official PostgresSaver, with each write made in one statement shared with other runs'
// writes. Its put runs a transaction of one INSERT per changed channel plus the checkpoint's
// (BEGIN, n+1 statements, COMMIT), its putWrites one of an INSERT per write: a one-node graph's
// run cost 24 round trips in them. Here a put or putWrites is a job of rows that goes in one
// statement, alone or grouped with concurrent runs' jobs (checkpoint-write-groups.ts); a single
// statement is atomic as the transaction was. Rows, columns, conflict rules and serialisation are
// the saver's own (its _dump* methods), so everything it reads back is unchanged. A stateless run's
// jobs may be held back a moment (held-checkpoint-writes.ts); a read of their thread writes them first.
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  JsonPlusSerializer,
  WRITES_IDX_MAP,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import type { RunLeases } from "../fenced-saver.js";
import { checkpointWriteGroups, type CheckpointJob, type WriteRow } from "./checkpoint-write-groups.js";
import { heldCheckpointWrites, type HeldCheckpointWrites } from "./held-checkpoint-writes.js";

export class OneStatementPostgresSaver extends PostgresSaver {
  readonly held: HeldCheckpointWrites;
  private readonly plain = new JsonPlusSerializer();

  /**
   * A guarded run's writes carry its lease, checked by the statement that writes them. `serde`
   * serialises blobs and writes (an encrypting one seals them); metadata is a jsonb column that
   * history filters query, so it always goes through the plain serialiser.
   */
  constructor(
    pool: pg.Pool,
    schema: string,
    private readonly leases: RunLeases,
    serde?: SerializerProtocol,
  ) {
    super(pool, serde, { schema });
    const qualified = (name: string) => `"${schema}".${name}`;
    this.held = heldCheckpointWrites(
      checkpointWriteGroups(pool, {
        checkpoints: qualified("checkpoints"),
        blobs: qualified("checkpoint_blobs"),
        writes: qualified("checkpoint_writes"),
        runs: qualified("runs"),
      }),
    );
  }

  override async _dumpMetadata(metadata: CheckpointMetadata): Promise<unknown> {
    const [, serialized] = await this.plain.dumpsTyped(metadata);
    return JSON.parse(new TextDecoder().decode(serialized).replace(/\0/g, ""));
  }

  override async _loadMetadata(metadata: Record<string, unknown>): Promise<CheckpointMetadata> {
    const [type, dumped] = await this.plain.dumpsTyped(metadata);
    return this.plain.loadsTyped(type, dumped);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.held.flushThread(threadOf(config));
    return super.getTuple(config);
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const threadId = config.configurable?.thread_id;
    if (typeof threadId === "string") await this.held.flushThread(threadId);
    else if (threadId === undefined) await this.held.flushAll();
    yield* super.list(config, options);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    const { thread_id, checkpoint_ns = "", checkpoint_id } = config.configurable as { thread_id: string; checkpoint_ns?: string; checkpoint_id?: string };
    const [blobs, serializedMetadata] = await Promise.all([
      this._dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions),
      this._dumpMetadata(metadata),
    ]);
    const runId = runOf(config);
    await this.held.submit(runId, {
      ...this.leaseOf(runId),
      threadId: thread_id,
      blobs,
      checkpoint: [thread_id, checkpoint_ns, checkpoint.id, checkpoint_id, this._dumpCheckpoint(checkpoint), serializedMetadata],
    });
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const configurable = config.configurable as { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
    // As the saver decides: writes only to the special channels replace earlier ones, others never do.
    const replace = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const dumped = await this._dumpWrites(configurable.thread_id, configurable.checkpoint_ns, configurable.checkpoint_id, taskId, writes);
    // The saver inserts one row after another, so of two rows with the same key the last one stays
    // when replacing and the first one otherwise; one INSERT may not touch a row twice, so only that one goes.
    const byKey = new Map<number, WriteRow>();
    for (const row of dumped) if (replace || !byKey.has(row[4])) byKey.set(row[4], row as WriteRow);
    const runId = runOf(config);
    await this.held.submit(runId, { ...this.leaseOf(runId), threadId: configurable.thread_id, writes: { rows: [...byKey.values()], replace } });
  }

  private leaseOf(runId: string | undefined): Pick<CheckpointJob, "lease"> {
    const lease = runId === undefined ? undefined : this.leases.get(runId);
    return lease ? { lease: { runId: runId!, ...lease } } : {};
  }
}

const threadOf = (config: RunnableConfig): string => String(config.configurable?.thread_id);

function runOf(config: RunnableConfig): string | undefined {
  const runId = config.configurable?.run_id;
  return typeof runId === "string" ? runId : undefined;
}
