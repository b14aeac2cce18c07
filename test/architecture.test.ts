// The layering of shared/design.md and style.md §1, checked on the real import graph: every
// import and re-export of every source file, as TypeScript's own pre-processor reads them (type-only
// imports included: a type is a dependency too). Folders are the units; the control plane's parts
// (api/, reconciler/, builder/, drivers/, router/, storage/) count as folders of their own.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [join(dir, entry.name)] : [],
  );
}

/** `server`, `domain`, `control-plane/api`, …; files directly under src/ are "(root)". */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split("/");
  if (parts.length === 1) return "(root)";
  return parts[0] === "control-plane" && parts.length > 2 ? `control-plane/${parts[1]}` : parts[0]!;
}

interface Import {
  from: string;
  /** A source file for a relative import, the package name otherwise. */
  to: string;
}

function importsOf(file: string): Import[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return importedFiles.map(({ fileName }) => ({
    from: file,
    to: fileName.startsWith(".") ? resolve(dirname(file), fileName).replace(/\.js$/, ".ts") : fileName,
  }));
}

const imports = sourceFiles(SRC).flatMap(importsOf);
const local = imports.filter((i) => i.to.startsWith(SRC));

/** Folder -> the folders it imports, with one file-level example of each edge. */
const edges = new Map<string, Map<string, string>>();
for (const { from, to } of local) {
  const a = folderOf(from);
  const b = folderOf(to);
  if (a === b) continue;
  if (!edges.has(a)) edges.set(a, new Map());
  edges.get(a)!.set(b, `${relative(SRC, from)} -> ${relative(SRC, to)}`);
}

const show = (i: Import) => `${relative(SRC, i.from)} -> ${i.to.startsWith(SRC) ? relative(SRC, i.to) : i.to}`;

describe("architecture", () => {
  it("reads a real import graph", () => {
    // Guards the checks below against passing on an empty graph.
    expect(edges.get("server")?.has("domain")).toBe(true);
    expect(edges.get("queue")?.has("runtime")).toBe(true);
  });

  it("has no cycles between folders", () => {
    const cycles: string[] = [];
    const visit = (folder: string, path: string[]) => {
      for (const next of edges.get(folder)?.keys() ?? []) {
        if (next === path[0]) cycles.push([...path, next].join(" -> "));
        else if (!path.includes(next) && next > path[0]!) visit(next, [...path, next]);
      }
    };
    for (const folder of edges.keys()) visit(folder, [folder]);
    expect(cycles).toEqual([]);
  });

  it("keeps the HTTP edge off the queue and storage: routes go through domain services", () => {
    const offenders = local.filter((i) => folderOf(i.from) === "server" && ["queue", "storage"].includes(folderOf(i.to))).map(show);
    expect(offenders).toEqual([]);
  });

  it("keeps domain, runtime, storage, queue and events free of HTTP code", () => {
    const inner = ["domain", "runtime", "storage", "queue", "events", "scheduler", "webhooks", "sweepers"];
    const offenders = imports
      .filter((i) => inner.includes(folderOf(i.from)))
      .filter((i) => (i.to.startsWith(SRC) && folderOf(i.to) === "server") || /^(hono|@hono\/)/.test(i.to))
      .map(show);
    expect(offenders).toEqual([]);
  });

  it("keeps the control plane's reconciler, builder, drivers and storage free of HTTP code", () => {
    const inner = ["control-plane/reconciler", "control-plane/builder", "control-plane/drivers", "control-plane/storage"];
    const offenders = imports
      .filter((i) => inner.includes(folderOf(i.from)))
      .filter((i) => (i.to.startsWith(SRC) && ["server", "control-plane/api"].includes(folderOf(i.to))) || /^(hono|@hono\/)/.test(i.to))
      .map(show);
    expect(offenders).toEqual([]);
  });

  it("lets only cli and the control plane's API import the server", () => {
    const allowed = ["cli", "server", "control-plane/api"];
    const offenders = local.filter((i) => folderOf(i.to) === "server" && !allowed.includes(folderOf(i.from))).map(show);
    expect(offenders).toEqual([]);
  });
});
