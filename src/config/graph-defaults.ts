// LANGGRAPH_CONFIG -> the default config and context of each graph's assistants. The variable
// holds a JSON object keyed by graph id; each entry is a run config (`configurable`, `tags`,
// `recursion_limit`, ...) whose `context` key, if any, is the assistants' context instead, as the
// official servers split it.
import { StartupError } from "../errors.js";
import type { JsonObject } from "../storage/records.js";

export interface GraphDefaults {
  config: JsonObject;
  context: JsonObject;
}

const VARIABLE = "LANGGRAPH_CONFIG";
const SHAPE = `${VARIABLE} must be a JSON object keyed by graph id, e.g. {"agent": {"configurable": {"model": "gpt-4o"}, "context": {"user_tier": "pro"}}}`;

/** Unset or empty: no defaults. Anything else that is not that shape stops start-up, naming the variable. */
export function parseGraphDefaults(text: string | undefined): Record<string, GraphDefaults> {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new StartupError(`Environment variable ${VARIABLE} is not valid JSON (${(err as Error).message}). ${SHAPE}`);
  }
  if (!isObject(parsed)) throw new StartupError(`Environment variable ${VARIABLE} is invalid: ${SHAPE}`);
  const out: Record<string, GraphDefaults> = {};
  for (const [graphId, entry] of Object.entries(parsed)) {
    if (!isObject(entry)) throw new StartupError(`Environment variable ${VARIABLE} is invalid at '${graphId}': the entry must be an object. ${SHAPE}`);
    const { context, ...config } = entry;
    if (context !== undefined && !isObject(context)) {
      throw new StartupError(`Environment variable ${VARIABLE} is invalid at '${graphId}.context': it must be an object`);
    }
    if (config.configurable !== undefined && !isObject(config.configurable)) {
      throw new StartupError(`Environment variable ${VARIABLE} is invalid at '${graphId}.configurable': it must be an object`);
    }
    out[graphId] = { config, context: context ?? {} };
  }
  return out;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
