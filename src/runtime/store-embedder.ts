// Resolves langgraph.json `store.index.embed` at start-up: either "./path/to/file.ts:export" (a
// LangChain Embeddings object, or a function from texts to vectors) or "provider:model", built with
// the provider's @langchain package from the project's own node_modules. A missing package stops
// the server at boot with the command that fixes it, rather than failing the first put.
import { createRequire } from "node:module";
import { join } from "node:path";
import { parseImportString } from "../config/langgraph-config.js";
import { StartupError } from "../errors.js";
import { describeCause, importExport } from "./load-module.js";

const WHAT = "store.index.embed";

/** Providers LangChain's "provider:model" strings name, and where their embeddings class lives. */
const PROVIDERS: Record<string, { pkg: string; className: string }> = {
  openai: { pkg: "@langchain/openai", className: "OpenAIEmbeddings" },
  azure_openai: { pkg: "@langchain/openai", className: "AzureOpenAIEmbeddings" },
  cohere: { pkg: "@langchain/cohere", className: "CohereEmbeddings" },
  google_genai: { pkg: "@langchain/google-genai", className: "GoogleGenerativeAIEmbeddings" },
  google_vertexai: { pkg: "@langchain/google-vertexai", className: "VertexAIEmbeddings" },
  mistralai: { pkg: "@langchain/mistralai", className: "MistralAIEmbeddings" },
  ollama: { pkg: "@langchain/ollama", className: "OllamaEmbeddings" },
  bedrock: { pkg: "@langchain/aws", className: "BedrockEmbeddings" },
};

/** Embeds texts: a LangChain Embeddings object, or a user's function wrapped to look like one. */
export interface Embedder {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

export interface StoreIndex {
  dims: number;
  /** Field paths embedded when a put gives no `index` of its own. */
  fields: string[];
  embedder: Embedder;
}

export interface IndexConfig {
  dims: number;
  embed: string;
  fields: string[];
}

export async function loadStoreIndex(root: string, config: IndexConfig): Promise<StoreIndex> {
  const embedder = isModulePath(config.embed) ? await fromModule(root, config.embed) : fromProvider(root, config.embed);
  return { dims: config.dims, fields: config.fields, embedder };
}

/** "./embed.ts:fn" and "src/embed.js" are paths; "openai:text-embedding-3-small" is not. */
function isModulePath(spec: string): boolean {
  const colon = spec.lastIndexOf(":");
  const path = colon > 1 ? spec.slice(0, colon) : spec;
  return /[\\/]/.test(path) || /\.(ts|mts|cts|js|mjs|cjs)$/.test(path);
}

async function fromModule(root: string, spec: string): Promise<Embedder> {
  const target = parseImportString(root, spec);
  const exported = await importExport(target, WHAT);
  const embedder = asEmbedder(exported);
  if (!embedder) {
    throw new StartupError(
      `${WHAT}: '${target.exportName}' exported from ${target.file} is neither an Embeddings object (embedDocuments and embedQuery) ` +
        "nor a function from a list of texts to a list of vectors",
    );
  }
  return embedder;
}

function asEmbedder(value: unknown): Embedder | undefined {
  const candidate = value as Partial<Embedder> | null;
  if (candidate && typeof candidate.embedDocuments === "function" && typeof candidate.embedQuery === "function") {
    return { embedDocuments: (texts) => candidate.embedDocuments!(texts), embedQuery: (text) => candidate.embedQuery!(text) };
  }
  if (typeof value === "function") {
    const embed = value as (texts: string[]) => number[][] | Promise<number[][]>;
    return {
      embedDocuments: async (texts) => embed(texts),
      embedQuery: async (text) => (await embed([text]))[0]!,
    };
  }
  return undefined;
}

function fromProvider(root: string, spec: string): Embedder {
  const colon = spec.indexOf(":");
  const provider = colon > 0 ? spec.slice(0, colon) : "";
  const model = spec.slice(colon + 1);
  const known = PROVIDERS[provider];
  if (!known || model === "") {
    throw new StartupError(
      `${WHAT} '${spec}' is neither "provider:model" with a known provider (${Object.keys(PROVIDERS).join(", ")}) ` +
        "nor a path to your own embedding function ('./src/embed.ts:embed')",
    );
  }
  const require = createRequire(join(root, "package.json"));
  let module: Record<string, unknown>;
  try {
    module = require(known.pkg) as Record<string, unknown>;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND";
    throw new StartupError(
      missing
        ? `${WHAT} '${spec}' needs the package ${known.pkg} in the project at ${root}: run 'npm install ${known.pkg}' there, ` +
            "or point store.index.embed at your own embedding function ('./src/embed.ts:embed')"
        : `${WHAT} '${spec}': loading ${known.pkg} failed: ${describeCause(err)}`,
    );
  }
  const Embeddings = module[known.className] as (new (options: { model: string }) => Embedder) | undefined;
  if (typeof Embeddings !== "function") {
    throw new StartupError(`${WHAT} '${spec}': ${known.pkg} has no export named ${known.className}; check the package's version`);
  }
  return new Embeddings({ model });
}
