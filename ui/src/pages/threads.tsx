// Threads, newest activity first, searchable by metadata (a JSON object) and status.
import { useEffect, useState } from "preact/hooks";
import type { Client, Thread, ThreadStatus } from "@langchain/langgraph-sdk";
import { errorText, parseJsonField } from "../api.js";
import { ErrorBox, Link, Progress, Status, when } from "../components/common.js";
import { navigate } from "../router.js";

const PAGE = 50;
const STATUSES: ThreadStatus[] = ["idle", "busy", "interrupted", "error"];

interface Filter {
  metadata?: Record<string, unknown>;
  status?: ThreadStatus;
}

export function ThreadsPage({ client }: { client: Client }) {
  const [metadataText, setMetadataText] = useState("");
  const [status, setStatus] = useState<ThreadStatus | "">("");
  const [threads, setThreads] = useState<Thread[]>();
  const [more, setMore] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const [filter, setFilter] = useState<Filter>({});

  const load = async (next: Filter, offset: number) => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await client.threads.search({ ...next, limit: PAGE, offset, sortBy: "updated_at", sortOrder: "desc" });
      setThreads((before) => (offset === 0 ? page : [...(before ?? []), ...page]));
      setMore(page.length === PAGE);
      setFilter(next);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setLoading(false);
    }
  };

  const search = (event?: Event) => {
    event?.preventDefault();
    let metadata: unknown;
    try {
      metadata = parseJsonField("Metadata", metadataText);
    } catch (err) {
      setError((err as Error).message);
      return;
    }
    if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))) {
      setError('Metadata must be a JSON object, e.g. {"user": "ada"}');
      return;
    }
    void load({ metadata: metadata as Record<string, unknown> | undefined, status: status || undefined }, 0);
  };

  useEffect(() => void load({}, 0), [client]);

  const newThread = async () => {
    try {
      const thread = await client.threads.create({ metadata: { created_from: "gantry-ui" } });
      navigate(`threads/${thread.thread_id}`);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section class="panel">
      <div class="title-row">
        <h2>Threads</h2>
        <button type="button" onClick={newThread}>
          New thread
        </button>
      </div>
      <form class="filters" onSubmit={search}>
        <label>
          Metadata (JSON)
          <input name="metadata" class="mono" placeholder='{"user": "ada"}' value={metadataText} onInput={(e) => setMetadataText(e.currentTarget.value)} />
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value as ThreadStatus | "")}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={loading}>
          Search
        </button>
      </form>
      <ErrorBox error={error} />
      {loading && <Progress label="Searching threads…" />}
      {threads?.length === 0 && <p class="muted">No threads match.</p>}
      {threads && threads.length > 0 && (
        <div class="table-wrap">
          <table class="threads">
            <thead>
              <tr>
                <th>Thread</th>
                <th>Status</th>
                <th>Updated</th>
                <th>Metadata</th>
              </tr>
            </thead>
            <tbody>
              {threads.map((t) => (
                <tr key={t.thread_id} data-thread={t.thread_id}>
                  <td class="mono small nowrap">
                    <Link to={`threads/${t.thread_id}`}>{t.thread_id}</Link>
                  </td>
                  <td>
                    <Status status={t.status} />
                  </td>
                  <td class="small nowrap">{when(t.updated_at)}</td>
                  <td class="mono small clip">{JSON.stringify(t.metadata ?? {})}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more && (
        <button type="button" class="secondary" disabled={loading} onClick={() => void load(filter, threads?.length ?? 0)}>
          Load more
        </button>
      )}
    </section>
  );
}
