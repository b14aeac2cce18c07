import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StartupError } from "../errors.js";
import { loadProjectConfig, parseDotenv, parseImportString } from "./langgraph-config.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

describe("langgraph.json", () => {
  it("resolves graph paths from the config's directory and reads export names", () => {
    const config = loadProjectConfig(write("ok.json", { graphs: { a: "./src/a.ts:graph", b: { path: "./b.ts", description: "B" } } }));
    expect(config.graphs).toEqual([
      { graphId: "a", file: join(dir, "src/a.ts"), exportName: "graph" },
      { graphId: "b", file: join(dir, "b.ts"), exportName: "default", description: "B" },
    ]);
    expect(config.http.disable_meta).toBe(false);
  });

  it("reads env from an object and from a .env file", () => {
    write(".env.test", "A=1\n# comment\nexport B='two words'\nC=\"line\\nbreak\"\nD=x # trailing\n");
    expect(loadProjectConfig(write("env-file.json", { graphs: { a: "./a.ts:g" }, env: ".env.test" })).env).toEqual({
      A: "1",
      B: "two words",
      C: "line\nbreak",
      D: "x",
    });
    expect(loadProjectConfig(write("env-obj.json", { graphs: { a: "./a.ts:g" }, env: { K: "v" } })).env).toEqual({ K: "v" });
  });

  it("lets a missing env file pass, named, only when asked to (a control-plane deployment with secrets)", () => {
    const path = write("env-optional.json", { graphs: { a: "./a.ts:g" }, env: "./absent.env" });
    expect(() => loadProjectConfig(path)).toThrow(/absent\.env, which cannot be read \(ENOENT\)\. Create it, or remove "env"/);
    const project = loadProjectConfig(path, { envFileOptional: true });
    expect(project.env).toEqual({});
    expect(project.missingEnvFile).toBe(join(dir, "absent.env"));
    write(".env.present", "P=1\n");
    const present = loadProjectConfig(write("env-present.json", { graphs: { a: "./a.ts:g" }, env: ".env.present" }), { envFileOptional: true });
    expect(present.env).toEqual({ P: "1" });
    expect(present.missingEnvFile).toBeUndefined();
  });

  it("refuses broken files with a message naming the file and the place", () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ["not-json.json", "{ graphs: ", /not valid JSON/],
      ["no-graphs.json", {}, /has no 'graphs': it is required/],
      ["empty-graphs.json", { graphs: {} }, /must name at least one graph/],
      ["bad-http-beside-unknown.json", { graphs: { a: "./a.ts:g" }, http: { disable_meta: "yes", disable_mpc: true } }, /invalid at 'http.disable_meta'/],
      ["bad-http.json", { graphs: { a: "./a.ts:g" }, http: { disable_meta: "yes" } }, /invalid at 'http.disable_meta'/],
      ["bad-prefix.json", { graphs: { a: "./a.ts:g" }, http: { mount_prefix: "api/" } }, /mount_prefix/],
      ["bad-store.json", { graphs: { a: "./a.ts:g" }, store: { index: { embed: "x" } } }, /store.index.dims/],
      ["bad-ttl.json", { graphs: { a: "./a.ts:g" }, checkpointer: { ttl: { strategy: "never" } } }, /checkpointer.ttl.strategy/],
      ["env-missing.json", { graphs: { a: "./a.ts:g" }, env: "./missing.env" }, /missing.env/],
    ];
    for (const [name, content, message] of cases) {
      const path = write(name, content);
      expect(() => loadProjectConfig(path), name).toThrow(StartupError);
      expect(() => loadProjectConfig(path), name).toThrow(message);
      expect(() => loadProjectConfig(path), name).toThrow(path);
    }
  });

  it("ignores, and names, the keys the official CLIs accept for image builds and the keys no CLI knows", () => {
    const config = loadProjectConfig(
      write("image-build.json", {
        graphs: { a: "./a.ts:g" },
        node_version: "20",
        dependencies: ["."],
        dockerfile_lines: ["RUN apt-get install -y curl"],
        _INTERNAL_docker_tag: "dev",
        graph_timeout: 30,
        http: { disable_meta: true, cors: { allow_origin: ["*"] } },
      }),
    );
    expect(config.ignoredKeys).toEqual({
      unused: ["_INTERNAL_docker_tag", "dependencies", "dockerfile_lines", "node_version"],
      unknown: ["http.cors.allow_origin", "graph_timeout"],
    });
    expect(config.http.disable_meta).toBe(true);
    expect(config.raw).not.toHaveProperty("graph_timeout");
    expect(loadProjectConfig(write("plain.json", { graphs: { a: "./a.ts:g" } })).ignoredKeys).toEqual({ unused: [], unknown: [] });
  });

  it("says which file it could not read", () => {
    expect(() => loadProjectConfig(join(dir, "absent.json"))).toThrow(/Cannot read config file .*absent.json/);
  });
});

describe("import strings", () => {
  it("splits on the last colon and defaults to the default export", () => {
    expect(parseImportString("/p", "./a.ts:graph")).toEqual({ file: "/p/a.ts", exportName: "graph" });
    expect(parseImportString("/p", "./a.ts")).toEqual({ file: "/p/a.ts", exportName: "default" });
    expect(parseImportString("/p", "./a.ts:")).toEqual({ file: "/p/a.ts", exportName: "default" });
  });

  it("reads quoted and unquoted dotenv values", () => {
    expect(parseDotenv("X=1\r\nY = 2\n")).toEqual({ X: "1", Y: "2" });
  });
});
