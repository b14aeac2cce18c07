// Keeps the layering of style.md §1: domain/, runtime/ and storage/ never import HTTP code, and
// only cli/ imports server/.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!);
}

describe("architecture", () => {
  const files = sourceFiles(SRC).filter((f) => !f.endsWith(".test.ts"));

  it("keeps domain, runtime and storage free of HTTP code", () => {
    const offenders: string[] = [];
    for (const file of files) {
      const layer = relative(SRC, file).split("/")[0];
      if (!["domain", "runtime", "storage"].includes(layer!)) continue;
      for (const spec of importsOf(file)) {
        if (spec.includes("/server/") || spec.startsWith("hono") || spec.startsWith("@hono/")) offenders.push(`${relative(SRC, file)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("keeps the control plane's reconciler, builder, drivers and storage free of HTTP code", () => {
    const offenders: string[] = [];
    for (const file of files) {
      const [top, part] = relative(SRC, file).split("/");
      if (top !== "control-plane" || !["reconciler", "builder", "drivers", "storage"].includes(part!)) continue;
      for (const spec of importsOf(file)) {
        if (spec.includes("/server/") || spec.includes("/api/") || spec.startsWith("hono") || spec.startsWith("@hono/")) offenders.push(`${relative(SRC, file)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("lets only cli and the control plane's HTTP layer import the server", () => {
    const httpLayers = ["cli", "server", "control-plane/api"];
    const offenders = files
      .filter((f) => !httpLayers.some((layer) => relative(SRC, f).startsWith(layer + "/")))
      .flatMap((f) => importsOf(f).filter((s) => s.includes("/server/")).map((s) => `${relative(SRC, f)} -> ${s}`));
    expect(offenders).toEqual([]);
  });
});
