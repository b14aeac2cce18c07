// Schemas of TypeScript-typed graphs: what reading them costs and when. A project of N graph ids
// (BENCH_GRAPHS, default 20) over the typed-schemas fixture starts on a fresh data dir; the figures
// are the start-up time (types are not read then), the time until /schemas answers with types
// (one extraction on a worker thread for every graph), the slowest /ok answer meanwhile (the event
// loop stays free), the next graph's answer (memory), and after a restart on the same data dir the
// start-up and the first /schemas (the cache on disk, checked against the hashes of the files read).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startGantry } from "../test/support/gantry-process.js";

const GRAPHS = Number(process.env.BENCH_GRAPHS ?? 20);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GRAPH_FILE = resolve(ROOT, "test/fixtures/typed-schemas/src/support.ts");

const dir = mkdtempSync(join(tmpdir(), "gantry-bench-typed-"));
const config = join(dir, "langgraph.json");
writeFileSync(config, JSON.stringify({ graphs: Object.fromEntries(Array.from({ length: GRAPHS }, (_, i) => [`support_${i}`, `${GRAPH_FILE}:graph`])) }));
const dataDir = join(dir, "data");

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
};
const schemasOf = async (url: string, graphId: string) =>
  (await (await fetch(`${url}/assistants/${graphId}/schemas`)).json()) as { state_schema?: { properties?: Record<string, { type?: string }> } };
const typed = (answer: Awaited<ReturnType<typeof schemasOf>>) => answer.state_schema?.properties?.tone?.type === "string";

try {
  const [first, startMs] = await timed(() => startGantry({ config, dataDir }));
  let slowestOkMs = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const [, ms] = await timed(() => fetch(`${first.url}/ok`).then((r) => r.text()));
      slowestOkMs = Math.max(slowestOkMs, ms);
      await new Promise((wake) => setTimeout(wake, 100));
    }
  })();
  const [, coldMs] = await timed(async () => {
    while (!typed(await schemasOf(first.url, "support_0"))) await new Promise((wake) => setTimeout(wake, 200));
  });
  probing = false;
  await probe;
  const [warmAnswer, warmMs] = await timed(() => schemasOf(first.url, `support_${GRAPHS - 1}`));
  const extraction = first
    .output()
    .split("\n")
    .filter((line) => line.includes("graph schemas read from TypeScript types"))
    .map((line) => (JSON.parse(line) as { duration_ms: number }).duration_ms)[0];
  await first.stop();

  const [second, restartMs] = await timed(() => startGantry({ config, dataDir }));
  const [cachedAnswer, cachedMs] = await timed(() => schemasOf(second.url, "support_0"));
  await second.stop();

  const rows: Array<[string, string]> = [
    [`start-up, ${GRAPHS} graphs, fresh data dir (to listening)`, `${Math.round(startMs)} ms`],
    ["first /schemas until typed (one extraction for all graphs)", `${Math.round(coldMs)} ms`],
    ["  of which the extraction on its worker thread (server log)", `${extraction ?? "?"} ms`],
    ["slowest GET /ok meanwhile", `${Math.round(slowestOkMs)} ms`],
    [`another graph's /schemas afterwards (memory)${typed(warmAnswer) ? "" : " — UNTYPED"}`, `${Math.round(warmMs)} ms`],
    ["start-up again on the same data dir", `${Math.round(restartMs)} ms`],
    [`first /schemas after the restart (disk cache)${typed(cachedAnswer) ? "" : " — UNTYPED"}`, `${Math.round(cachedMs)} ms`],
  ];
  console.log("| typed schemas | |\n|---|---:|");
  for (const [label, value] of rows) console.log(`| ${label} | ${value} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
