// Imports a user's module ("./src/agent.ts:graph") as it is, TypeScript included: the process runs
// with tsx's loader registered (bin/gantry.js), so no build step stands between a user and a run.
import { fileURLToPath, pathToFileURL } from "node:url";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
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
    const cause = (err instanceof SyntaxError && (await syntaxErrorIn(target.file, err))) || describeCause(err);
    throw new StartupError(`${what}: importing ${target.file} failed: ${cause}`);
  }
  if (!(target.exportName in module) || module[target.exportName] === undefined) {
    const available = Object.keys(module).filter((k) => k !== "__esModule");
    throw new StartupError(`${what}: ${target.file} has no export named '${target.exportName}' (it exports: ${available.join(", ") || "nothing"}).`);
  }
  return module[target.exportName];
}

export function describeCause(err: unknown): string {
  if (err instanceof Error) return syntaxErrorAt(err) ?? `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * A syntax error as `SyntaxError at file:line[:column]: problem`, or undefined for any other error.
 * TypeScript (and JavaScript in a CommonJS project) is parsed by tsx's esbuild, whose error names
 * the place in its message; V8's own SyntaxError names it only in the first line of its stack.
 */
function syntaxErrorAt(err: Error): string | undefined {
  if (err.name === "TransformError") {
    const found = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(err.message);
    return found ? `SyntaxError at ${found[1]}:${found[2]}:${found[3]}: ${found[4]}` : undefined;
  }
  if (!(err instanceof SyntaxError)) return undefined;
  const place = /^(\S+?):(\d+)$/m.exec(err.stack?.split("\n")[0] ?? "");
  if (!place) return undefined;
  const file = place[1]!.startsWith("file://") ? fileURLToPath(place[1]!) : place[1]!;
  return `SyntaxError at ${file}:${place[2]}: ${err.message}`;
}

/**
 * Where a SyntaxError V8 raised (an ES module, under its own parser) lies in `file`: V8 keeps the
 * place out of the error it hands to import(). TypeScript's parser, loaded only on this path, finds
 * it again; undefined when the file parses, since the error then came from a module it imports.
 */
async function syntaxErrorIn(file: string, err: SyntaxError): Promise<string | undefined> {
  const ts = (await import("typescript")).default;
  const source = ts.createSourceFile(file, await readFile(file, "utf8"), ts.ScriptTarget.Latest, true);
  const { diagnostics = [] } = ts.transpileModule(source.text, { fileName: file, reportDiagnostics: true });
  const first = diagnostics.find((d) => d.start !== undefined);
  if (!first) return undefined;
  const { line, character } = source.getLineAndCharacterOfPosition(first.start!);
  return `SyntaxError at ${file}:${line + 1}:${character + 1}: ${err.message}`;
}
