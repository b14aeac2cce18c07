// What `gantry dev` and `gantry serve` load, read from the source: the modules their start-up
// imports statically, and the packages those import. Guards the start-up time (docs/benchmarks.md,
// 2026-11-28): the MCP SDK and OpenTelemetry's SDK stay out of it (they load with import(), when
// their feature is used), and bin/server-packages.js, which loads packages before tsx's hooks,
// lists only packages the server imports.
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SERVER_PACKAGES } from "../bin/server-packages.js";

const SRC = resolve(import.meta.dirname, "..", "src");

/** The specifiers `import()` calls name in a file. */
function dynamicImports(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The specifiers a file imports or re-exports as values, at load (not `import type`), and with `dynamic` those of its `import()` calls. */
function importsOf(file: string, dynamic: boolean): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const loaded = source.statements.flatMap((statement) => {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause !== undefined &&
          clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((element) => element.isTypeOnly));
      return typeOnly ? [] : [(statement.moduleSpecifier as ts.StringLiteral).text];
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) return [(statement.moduleSpecifier as ts.StringLiteral).text];
    return [];
  });
  return dynamic ? [...loaded, ...dynamicImports(source)] : loaded;
}

/** Every source file `entries` load (statically, or also through import() with `dynamic`), each with the packages it imports. */
function reachable(entries: string[], dynamic: boolean): Map<string, string[]> {
  const files = new Map<string, string[]>();
  const pending = entries.map((entry) => resolve(SRC, entry));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    const specifiers = importsOf(file, dynamic);
    files.set(
      file,
      specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("node:")),
    );
    for (const s of specifiers) if (s.startsWith(".")) pending.push(resolve(dirname(file), s).replace(/\.js$/, ".ts"));
  }
  return files;
}

// main.ts imports dev.ts or serve.ts, and they agent-server.ts, with import(): each is a start-up of its own.
const ENTRIES = { dev: ["cli/main.ts", "cli/dev.ts", "cli/agent-server.ts"], serve: ["cli/main.ts", "cli/serve.ts", "cli/agent-server.ts"] };

const LOADED_WHEN_USED = [/^@modelcontextprotocol\//, /^@opentelemetry\/(?!api$)/];

describe.each(["dev", "serve"] as const)("gantry %s at start", (command) => {
  const start = reachable(ENTRIES[command], false);

  it("reads the real start-up", () => {
    // Guards the checks below against passing on a graph that stopped at the entry files.
    expect(start.has(resolve(SRC, "server/app.ts"))).toBe(true);
    expect(start.has(resolve(SRC, "queue/worker.ts"))).toBe(true);
  });

  it("imports neither the MCP SDK nor OpenTelemetry's SDK, which load when /mcp is called or traces are exported", () => {
    const offenders = [...start].flatMap(([file, packages]) =>
      packages.filter((p) => LOADED_WHEN_USED.some((pattern) => pattern.test(p))).map((p) => `${relative(SRC, file)} -> ${p}`),
    );
    expect(offenders).toEqual([]);
  });

  it("imports every package bin/server-packages.js loads before tsx", () => {
    // Through import() too: `serve` opens PostgreSQL storage so, and needs it at every start.
    const imported = new Set([...reachable(ENTRIES[command], true).values()].flat());
    expect(SERVER_PACKAGES[command].filter((p) => !imported.has(p))).toEqual([]);
  });
});
