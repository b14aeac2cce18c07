// Imports a user's module ("./src/agent.ts:graph") as it is, TypeScript included: the process runs
// with tsx's loader registered (bin/gantry.js), so no build step stands between a user and a run.
import { pathToFileURL } from "node:url";
import { existsSync } from "node:fs";
import { StartupError } from "../errors.js";

export interface ModuleExport {
  file: string;
  exportName: string;
}

/** The named export of a module, or a StartupError naming the file, the export and the cause. */
export async function importExport(target: ModuleExport, what: string): Promise<unknown> {
  if (!existsSync(target.file)) {
    throw new StartupError(`${what}: file ${target.file} does not exist. Check the path in langgraph.json.`);
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(target.file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new StartupError(`${what}: importing ${target.file} failed: ${describeCause(err)}`);
  }
  if (!(target.exportName in module) || module[target.exportName] === undefined) {
    const available = Object.keys(module).filter((k) => k !== "__esModule");
    throw new StartupError(`${what}: ${target.file} has no export named '${target.exportName}' (it exports: ${available.join(", ") || "nothing"}).`);
  }
  return module[target.exportName];
}

export function describeCause(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
