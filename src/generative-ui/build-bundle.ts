// Builds one `ui` entry of langgraph.json with the official bundler (@langchain/langgraph-ui, the
// one the official server uses), so the output is what the SDK's LoadExternalComponent loads. The
// build runs in a child process: esbuild prints its own multi-line diagnostics to the stderr it
// inherits, with no option to silence it, and a failed start-up must say one line.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { StartupError } from "../errors.js";

export interface UiFile {
  basename: string;
  contents: Uint8Array;
}

export interface UiEntry {
  /** The graph the components belong to (the key under `ui`). */
  graphId: string;
  /** Absolute path of the file exporting the components. */
  file: string;
}

export interface BuildOptions {
  /** The project root (langgraph.json's directory): the bundler resolves from here. */
  root: string;
  /** `ui_config.shared`: packages the page provides, left out of the bundle. */
  shared: string[];
}

export const BUNDLER_URL = import.meta.resolve("@langchain/langgraph-ui/dist/bundler.mjs");

// Room for a bundle with its libraries in it, base64 in JSON.
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

// The child's whole program: build, and answer on stdout with the files or esbuild's first error.
const CHILD = `
const [bundlerUrl, spec] = process.argv.slice(1);
const { graphId, root, userPath, shared } = JSON.parse(spec);
const { build } = await import(bundlerUrl);
let answer;
try {
  const files = await build(graphId, { cwd: root, userPath, config: { shared } });
  answer = { files: files.map((f) => ({ basename: f.basename, contents: Buffer.from(f.contents).toString("base64") })) };
} catch (err) {
  const first = err?.errors?.[0];
  const at = first?.location ? { file: first.location.file, line: first.location.line, column: first.location.column } : undefined;
  answer = { error: { text: first?.text ?? String(err?.message ?? err), at } };
}
process.stdout.write(JSON.stringify(answer));
`;

interface ChildAnswer {
  files?: { basename: string; contents: string }[];
  error?: { text: string; at?: { file: string; line: number; column: number } };
}

/** The entry's built files (`entrypoint.js`, and `entrypoint.css` when it imports CSS); a StartupError naming the file otherwise. */
export async function buildBundle(entry: UiEntry, options: BuildOptions): Promise<UiFile[]> {
  const failed = (cause: string) => new StartupError(`Generative UI for graph '${entry.graphId}' (${entry.file}) does not build: ${oneLine(cause)}`);
  if (!existsSync(entry.file)) throw failed("the file does not exist");
  const spec = JSON.stringify({ graphId: entry.graphId, root: options.root, userPath: relative(options.root, entry.file), shared: options.shared });
  const stdout = await new Promise<string>((done, fail) => {
    execFile(
      process.execPath,
      ["--input-type=module", "-e", CHILD, BUNDLER_URL, spec],
      { cwd: options.root, maxBuffer: MAX_OUTPUT_BYTES, encoding: "utf8" },
      (err, out, stderr) => (err ? fail(failed(stderr.trim().split("\n").at(-1) || err.message)) : done(out)),
    );
  });
  const answer = JSON.parse(stdout) as ChildAnswer;
  if (answer.error) {
    const { text, at } = answer.error;
    // esbuild names files relative to the build's working directory, the project root.
    const where = at && !at.file.includes(":") ? `${resolve(options.root, at.file)}:${at.line}:${at.column}: ` : "";
    throw failed(where + text);
  }
  return (answer.files ?? []).map((f) => ({ basename: f.basename, contents: Buffer.from(f.contents, "base64") }));
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
