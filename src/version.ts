// Gantry's own version and the LangGraph it was installed with, as /info reports them.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

export const GANTRY_VERSION: string = pkg.version;

export function langgraphVersion(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const path = require.resolve("@langchain/langgraph/package.json");
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return null;
  }
}
