// `npm run bench:protocol`: protocol v2 streaming (issue #19) on Gantry (`gantry dev`) side by side
// with the JS reference server in one run: time to first event and events/s for the 5,000-custom-
// event graph over SSE and over WebSocket (bench/measure-protocol.ts), with the classic
// `runs.stream` SSE figure taken in the same run for scale. Streams alternate between the servers so
// machine noise falls on both. Prints a Markdown table and writes it as JSON to
// bench/results/protocol.json. Exits 1 when any answer was wrong.
import { Client } from "@langchain/langgraph-sdk";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { ErrorTally, type Row, type Target } from "./bench-target.js";
import { protocolStreams, type ProtocolCounts } from "./measure-protocol.js";
import { customStream } from "./measure-runs.js";
import { errorSummary, markdownTable, resultJson } from "./report.js";
import { type BenchServer, startGantryForBench, startReferenceForBench } from "./start-server.js";

const counts: ProtocolCounts = { customEvents: 5000, streams: Number(process.env.BENCH_STREAMS ?? 5) };

const client = (server: BenchServer) => new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } });

async function main(): Promise<number> {
  const started = performance.now();
  const load = [loadavg()[0]!];
  const errors = new ErrorTally();
  const rows: Row[] = [];
  const servers: BenchServer[] = [];
  try {
    const [gantry, reference] = await Promise.all([startGantryForBench(), startReferenceForBench()]);
    servers.push(gantry, reference);
    const targets: Target[] = [
      { name: "gantry", client: client(gantry), server: gantry },
      { name: "reference", client: client(reference), server: reference },
    ];
    // One untimed stream each way first: the first run of a graph pays for loading it.
    await protocolStreams(targets, "sse", { ...counts, streams: 1 }, new ErrorTally());
    rows.push(...(await customStream(targets, counts, errors)));
    rows.push(...(await protocolStreams(targets, "sse", counts, errors)));
    rows.push(...(await protocolStreams(targets, "websocket", counts, errors)));
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  load.push(loadavg()[0]!);
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(
    `\nProtocol v2 streams: Gantry (gantry dev) vs the JS reference server (@langchain/langgraph-api); classic rows through the official SDK, protocol rows on the raw wire`,
  );
  console.log(
    `machine: ${cpus().length} cores, ${process.version}; 1-min load at start ${load[0]}, at end ${load[1]}; ${counts.streams} streams per cell; ${seconds} s\n`,
  );
  console.log(markdownTable(rows));
  console.log(`\n${errorSummary(errors)}`);
  const resultsDir = fileURLToPath(new URL("results/", import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(
    `${resultsDir}protocol.json`,
    resultJson(rows, errors, { benchmark: "protocol", date: new Date().toISOString(), command: "npm run bench:protocol", seconds, load_1m: load, counts }),
  );
  return errors.total() > 0 ? 1 : 0;
}

process.exitCode = await main();
