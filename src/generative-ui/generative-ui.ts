// The project's generative UI (langgraph.json `ui`, `ui_config`): every entry built at start-up,
// where a broken one stops the server, then kept in memory for the routes to serve. Under
// `gantry dev` each entry is rebuilt when its files change, as the official dev server does.
import { resolve } from "node:path";
import type { ProjectConfig } from "../config/langgraph-config.js";
import type { Logger } from "../logging.js";
import { buildBundle, BUNDLER_URL, type UiEntry, type UiFile } from "./build-bundle.js";

export type { UiFile };

/** What the routes read: the current files of a graph's components. */
export interface GenerativeUiFiles {
  files(graphId: string): readonly UiFile[] | undefined;
}

export interface GenerativeUi extends GenerativeUiFiles {
  close(): Promise<void>;
}

/** The `ui` entries, paths resolved from the project root; none when langgraph.json has no `ui`. */
export function uiEntries(project: ProjectConfig): UiEntry[] {
  return Object.entries(project.raw.ui ?? {}).map(([graphId, path]) => ({ graphId, file: resolve(project.root, path) }));
}

export async function startGenerativeUi(project: ProjectConfig, options: { watch: boolean; log: Logger }): Promise<GenerativeUi> {
  const entries = uiEntries(project);
  const buildOptions = { root: project.root, shared: project.raw.ui_config?.shared ?? [] };
  const built = new Map<string, readonly UiFile[]>();
  const started = performance.now();
  await Promise.all(entries.map(async (entry) => built.set(entry.graphId, await buildBundle(entry, buildOptions))));
  options.log.info("generative UI built", { graphs: entries.map((e) => e.graphId), ms: Math.round(performance.now() - started) });

  // Started in the background: the files above are served meanwhile, and start-up does not wait
  // for the bundler to load a second time.
  const watching = options.watch ? watchEntries(project.root, entries, buildOptions, built, options.log) : Promise.resolve([]);
  watching.catch((err: unknown) => options.log.warn("generative UI is not watched for changes", { error: String(err) }));

  return {
    files: (graphId) => built.get(graphId),
    async close() {
      const contexts = await watching.catch(() => []);
      await Promise.all(contexts.map((context) => context.dispose()));
    },
  };
}

async function watchEntries(
  root: string,
  entries: UiEntry[],
  buildOptions: { shared: string[] },
  built: Map<string, readonly UiFile[]>,
  log: Logger,
): Promise<{ dispose(): Promise<void> }[]> {
  // Loaded only here: the bundler pulls in esbuild and Tailwind, which `gantry serve` never needs
  // outside the child build.
  const bundler = (await import(BUNDLER_URL)) as typeof import("@langchain/langgraph-ui/dist/bundler.mjs");
  // esbuild reports a failed rebuild on stderr itself; the last good files stay served.
  return Promise.all(
    entries.map((entry) =>
      bundler.watch(entry.graphId, { cwd: root, userPath: entry.file, config: buildOptions }, (files) => {
        built.set(entry.graphId, files);
        log.debug("generative UI rebuilt", { graph: entry.graphId });
      }),
    ),
  );
}
