// Data-path metrics through the official SDK: many threads with metadata (creation rate, search by
// metadata, server memory) and the long-term store (puts, gets, filtered search). Every answer
// is checked; wrong ones go to the tally.
import { alternate, describeError, type ErrorTally, type Row, type Target } from "./bench-target.js";
import { loadRange, percentile } from "./stats.js";

export interface DataCounts {
  threads: number;
  threadSearches: number;
  storeItems: number;
  storeSearches: number;
  concurrency: number;
}

const CHUNKS = 10;
const USERS = 1000;

export async function threadsWithMetadata(targets: Target[], counts: DataCounts, errors: ErrorTally): Promise<Row[]> {
  const metric = `${counts.threads} threads with metadata`;
  const rssBefore = Object.fromEntries(targets.map((t) => [t.name, t.server.rssMiB()]));
  const createSeconds: Record<string, number> = { gantry: 0, reference: 0 };
  const chunk = Math.ceil(counts.threads / CHUNKS);
  await alternate(targets, CHUNKS, async (target, round) => {
    const from = round * chunk;
    createSeconds[target.name]! += await loadRange(from, Math.min(from + chunk, counts.threads), counts.concurrency, async (n) => {
      try {
        await target.client.threads.create({ metadata: { user: `user-${n % USERS}`, n, tier: n % 2 === 0 ? "free" : "pro" } });
      } catch (error) {
        errors.add(target.name, `${metric}: create`, describeError(error));
      }
    });
  });
  const searchTimes: Record<string, number[]> = { gantry: [], reference: [] };
  const userThreads = (u: number) => Math.max(0, Math.ceil((counts.threads - u) / USERS));
  await alternate(targets, 4, async (target, round) => {
    const perRound = Math.ceil(counts.threadSearches / 4);
    for (let i = 0; i < perRound; i++) {
      const u = ((round * perRound + i) * 37) % USERS;
      const user = `user-${u}`;
      try {
        const t0 = performance.now();
        const found = await target.client.threads.search({ metadata: { user }, limit: 10 });
        searchTimes[target.name]!.push(performance.now() - t0);
        if (found.length !== Math.min(10, userThreads(u)) || found.some((t) => t.metadata?.user !== user))
          errors.add(target.name, `${metric}: search`, `${found.length} threads, users ${found.map((t) => t.metadata?.user).join(",")}`);
      } catch (error) {
        errors.add(target.name, `${metric}: search`, describeError(error));
      }
    }
  });
  const rssAfter = Object.fromEntries(targets.map((t) => [t.name, t.server.rssMiB()]));
  const threadSamples = { gantry: counts.threads, reference: counts.threads };
  return [
    {
      metric: `${metric}: created/s (${counts.concurrency} clients)`,
      unit: "threads/s",
      better: "higher",
      gantry: counts.threads / createSeconds.gantry!,
      reference: counts.threads / createSeconds.reference!,
      samples: threadSamples,
    },
    {
      metric: `${metric}: threads.search by metadata p50 (limit 10)`,
      unit: "ms",
      better: "lower",
      gantry: percentile(searchTimes.gantry!, 50),
      reference: percentile(searchTimes.reference!, 50),
      goal: { atMost: 5 },
      samples: { gantry: searchTimes.gantry!.length, reference: searchTimes.reference!.length },
    },
    { metric: `${metric}: server RSS before`, unit: "MiB", better: "lower", gantry: rssBefore.gantry, reference: rssBefore.reference },
    { metric: `${metric}: server RSS after`, unit: "MiB", better: "lower", gantry: rssAfter.gantry, reference: rssAfter.reference },
  ];
}

export async function storeItems(targets: Target[], counts: DataCounts, errors: ErrorTally): Promise<Row[]> {
  const metric = `store, ${counts.storeItems} items`;
  const namespace = ["bench", "items"];
  const seconds: Record<string, { put: number; get: number }> = { gantry: { put: 0, get: 0 }, reference: { put: 0, get: 0 } };
  const chunk = Math.ceil(counts.storeItems / 5);
  await alternate(targets, 5, async (target, round) => {
    const from = round * chunk;
    const to = Math.min(from + chunk, counts.storeItems);
    seconds[target.name]!.put += await loadRange(from, to, counts.concurrency, async (i) => {
      try {
        await target.client.store.putItem(namespace, `k${i}`, { i, group: `g${i % 50}` });
      } catch (error) {
        errors.add(target.name, `${metric}: put`, describeError(error));
      }
    });
    seconds[target.name]!.get += await loadRange(from, to, counts.concurrency, async (i) => {
      try {
        const item = await target.client.store.getItem(namespace, `k${i}`);
        if ((item?.value as { i?: number } | undefined)?.i !== i) errors.add(target.name, `${metric}: get`, `k${i} read back ${JSON.stringify(item?.value)}`);
      } catch (error) {
        errors.add(target.name, `${metric}: get`, describeError(error));
      }
    });
  });
  const searchTimes: Record<string, number[]> = { gantry: [], reference: [] };
  await alternate(targets, 4, async (target, round) => {
    const perRound = Math.ceil(counts.storeSearches / 4);
    for (let i = 0; i < perRound; i++) {
      const group = `g${(round * perRound + i) % 50}`;
      try {
        const t0 = performance.now();
        const { items } = await target.client.store.searchItems(namespace, { filter: { group }, limit: 10 });
        searchTimes[target.name]!.push(performance.now() - t0);
        if (items.length !== Math.min(10, Math.ceil(counts.storeItems / 50)) || items.some((item) => (item.value as { group?: string }).group !== group))
          errors.add(target.name, `${metric}: search`, `${items.length} items for ${group}`);
      } catch (error) {
        errors.add(target.name, `${metric}: search`, describeError(error));
      }
    }
  });
  const opsPerSecond = (name: string, op: "put" | "get") => counts.storeItems / seconds[name]![op];
  return [
    {
      metric: `${metric}: putItem (${counts.concurrency} clients)`,
      unit: "ops/s",
      better: "higher",
      gantry: opsPerSecond("gantry", "put"),
      reference: opsPerSecond("reference", "put"),
    },
    {
      metric: `${metric}: getItem (${counts.concurrency} clients)`,
      unit: "ops/s",
      better: "higher",
      gantry: opsPerSecond("gantry", "get"),
      reference: opsPerSecond("reference", "get"),
    },
    {
      metric: `${metric}: searchItems with a filter p50 (limit 10)`,
      unit: "ms",
      better: "lower",
      gantry: percentile(searchTimes.gantry!, 50),
      reference: percentile(searchTimes.reference!, 50),
      samples: { gantry: searchTimes.gantry!.length, reference: searchTimes.reference!.length },
    },
  ];
}
