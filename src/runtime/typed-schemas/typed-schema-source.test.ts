// The lazy, cached source of typed schemas, with the extraction itself replaced by a function that
// counts its calls (extract.test.ts covers the real one).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../logging.js";
import type { ExtractTarget, Extraction } from "./extract.js";
import { createTypedSchemaSource } from "./typed-schema-source.js";

const log = createLogger({ level: "error", json: true, write: () => {} });
const STATE = { type: "object", properties: { tone: { type: "string", enum: ["a", "b"] } } };

describe("typed schema source", () => {
  let dir: string;
  let graphFile: string;
  let calls: ExtractTarget[][];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "gantry-typed-schemas-"));
    graphFile = join(dir, "agent.ts");
    await writeFile(graphFile, "export const graph = 1;");
    calls = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const extractFrom =
    (file: string) =>
    async (targets: ExtractTarget[]): Promise<Extraction> => {
      calls.push(targets);
      const hash = createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
      return {
        graphs: Object.fromEntries(targets.map((t) => [t.graphId, { namespaces: { "": { state: STATE, input: null, output: null, config: null } } }])),
        files: { [file]: hash },
      };
    };
  const sourceWith = (extract: (targets: ExtractTarget[]) => Promise<Extraction>, cacheDir?: string, waitMs?: number) =>
    createTypedSchemaSource({
      graphs: [
        { graphId: "agent", file: graphFile, exportName: "graph" },
        { graphId: "helper", file: graphFile, exportName: "graph" },
        { graphId: "plain", file: join(dir, "plain.js"), exportName: "graph" },
      ],
      log,
      extract,
      ...(cacheDir ? { cacheDir } : {}),
      ...(waitMs !== undefined ? { waitMs } : {}),
    });

  it("reads every TypeScript graph in one extraction, on first request only", async () => {
    const source = sourceWith(extractFrom(graphFile));
    expect(calls).toEqual([]);
    expect((await source.get("agent"))?.[""]?.state).toEqual(STATE);
    expect((await source.get("helper"))?.[""]?.state).toEqual(STATE);
    expect(await source.get("plain")).toBeUndefined();
    expect(calls.map((targets) => targets.map((t) => t.graphId))).toEqual([["agent", "helper"]]);
  });

  it("reuses the result kept on disk while the files read are unchanged, and reads again after a change", async () => {
    const cacheDir = join(dir, "cache");
    await sourceWith(extractFrom(graphFile), cacheDir).get("agent");
    expect((await sourceWith(extractFrom(graphFile), cacheDir).get("agent"))?.[""]?.state).toEqual(STATE);
    expect(calls).toHaveLength(1);
    await writeFile(graphFile, "export const graph = 2;");
    await sourceWith(extractFrom(graphFile), cacheDir).get("agent");
    expect(calls).toHaveLength(2);
  });

  it("answers without types when the extraction outlasts the wait, and with them once it ends", async () => {
    let finish: () => void = () => {};
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const source = sourceWith(
      async (targets) => {
        await gate;
        return extractFrom(graphFile)(targets);
      },
      undefined,
      20,
    );
    expect(await source.get("agent")).toBeUndefined();
    finish();
    // The wait is over, so each answer is whatever is known at that moment: poll until the types are.
    const deadline = Date.now() + 5_000;
    let answer = await source.get("agent");
    while (!answer && Date.now() < deadline) {
      await new Promise((wake) => setTimeout(wake, 10));
      answer = await source.get("agent");
    }
    expect(answer?.[""]?.state).toEqual(STATE);
    expect(calls).toHaveLength(1);
  });

  it("answers without types for a graph the extraction could not read", async () => {
    const source = sourceWith(async () => ({ graphs: { agent: { error: "no export" } }, files: {} }));
    expect(await source.get("agent")).toBeUndefined();
  });
});
