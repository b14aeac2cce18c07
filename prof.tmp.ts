import { Client } from "@langchain/langgraph-sdk";
import { startGantryForBench } from "./bench/start-server.ts";
const s = await startGantryForBench();
const c = new Client({ apiUrl: s.url, callerOptions: { maxRetries: 0 } });
const t = await c.threads.create();
const times: number[] = [];
for (let i = 0; i < 400; i++) { const t0 = performance.now(); await c.runs.wait(t.thread_id, "echo", { input: { message: "x" } }); times.push(performance.now() - t0); }
times.sort((a, b) => a - b); console.log("p50", times[200]);
await s.stop();
