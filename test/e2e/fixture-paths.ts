// Where the fixture projects live.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = resolve(fileURLToPath(new URL("../fixtures", import.meta.url)));

export const fixture = (...parts: string[]): string => resolve(FIXTURES, ...parts);

/** The five fixture graphs: echo (zod), annotated, uncompiled, factory, nested. */
export const GRAPHS_CONFIG = fixture("graphs", "langgraph.json");

/** One graph, and a TTL sweeper that runs every 300 ms instead of every 5 minutes. */
export const FAST_SWEEP_CONFIG = fixture("graphs", "langgraph.fast-sweep.json");
