// Reads the JSON Schemas of a graph, and of the subgraphs it uses, from its TypeScript types: the
// compiler resolves the exported graph's type with the project's own tsconfig and its own copy of
// @langchain/langgraph, and the type slots LangGraph keeps on a compiled graph (~RunInput,
// ~InputType, ~OutputType, builder._configSchema) say what its state, input, output and config
// are. CPU-heavy (seconds): callers run it in a worker thread and cache the result.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import ts from "typescript";
import { findSubgraphs, isCompiledGraphType } from "./find-subgraphs.js";
import { type JsonSchema, TypeSchemaConverter } from "./type-to-json-schema.js";

export interface TypedSchemas {
  input: JsonSchema | null;
  output: JsonSchema | null;
  /** The state's update type: every channel optional, reducer inputs (what a client may write). */
  state: JsonSchema | null;
  /** Also the context schema: a JS graph has one type for both. */
  config: JsonSchema | null;
}

export interface Extraction {
  /** By namespace: "" is the graph itself, "research" and "research|search" its subgraphs. */
  graphs: Record<string, TypedSchemas>;
  /** Every file the compiler read but TypeScript's own lib files, with the sha256 of its content: what the result depends on. */
  files: Record<string, string>;
}

export interface ExtractTarget {
  file: string;
  exportName: string;
}

/** Files parsed once and shared by the programs of one extraction run (one per graph). */
export type SourceFileCache = Map<string, ts.SourceFile>;

export function extractTypedSchemas(target: ExtractTarget, cache: SourceFileCache = new Map()): Extraction {
  const { options, configFile } = compilerOptionsFor(dirname(target.file));
  const program = ts.createProgram({ rootNames: [target.file], options, host: cachingHost(options, cache) });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(target.file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${target.file} is not a module the TypeScript compiler can read`);
  let exported = checker.getExportsOfModule(moduleSymbol).find((s) => s.getName() === target.exportName);
  if (!exported) throw new Error(`${target.file} has no export named '${target.exportName}'`);
  if (exported.flags & ts.SymbolFlags.Alias) exported = checker.getAliasedSymbol(exported);

  const converter = new TypeSchemaConverter(checker);
  const graphs: Record<string, TypedSchemas> = {};
  const root = compiledGraphOf(checker, checker.getTypeOfSymbol(exported));
  graphs[""] = root ? schemasOf(checker, converter, root) : emptySchemas();
  const declaration = exported.valueDeclaration;
  if (declaration && ts.isVariableDeclaration(declaration)) {
    for (const { namespace, declaration: sub } of findSubgraphs(checker, declaration)) {
      const compiled = compiledGraphOf(checker, checker.getTypeAtLocation(sub.name));
      if (compiled) graphs[namespace] = schemasOf(checker, converter, compiled);
    }
  }

  const files: Record<string, string> = {};
  const read = program.getSourceFiles().filter((file) => !program.isSourceFileDefaultLibrary(file)).map((file) => file.fileName);
  for (const file of configFile ? [...read, configFile] : read) files[file] = contentHash(readFileSync(file));
  return { graphs, files };
}

function schemasOf(checker: ts.TypeChecker, converter: TypeSchemaConverter, compiled: ts.Type): TypedSchemas {
  const slot = (type: ts.Type | undefined, name: string) => {
    const property = type && checker.getPropertyOfType(type, name);
    return property ? checker.getTypeOfSymbol(property) : undefined;
  };
  const rootOf = (type: ts.Type | undefined) => (type && !(type.flags & ts.TypeFlags.Any) ? converter.root(type) : null);
  return {
    state: rootOf(slot(compiled, "~RunInput")),
    input: rootOf(slot(compiled, "~InputType")),
    output: rootOf(slot(compiled, "~OutputType")),
    config: configSchema(checker, converter, slot(slot(compiled, "builder"), "_configSchema")),
  };
}

/**
 * The config (context) schema is a StateDefinition: channels, not values. Each field is the
 * channel's update type, optional, as the JS reference server reports it.
 */
function configSchema(checker: ts.TypeChecker, converter: TypeSchemaConverter, definition: ts.Type | undefined): JsonSchema | null {
  if (!definition) return null;
  const channels = checker.getNonNullableType(definition);
  const fields: Array<{ name: string; type: ts.Type; description: string }> = [];
  for (const property of checker.getPropertiesOfType(channels)) {
    let channel = checker.getTypeOfSymbol(property);
    const factory = channel.getCallSignatures()[0];
    if (factory) channel = factory.getReturnType();
    const update = checker.getPropertyOfType(channel, "UpdateType");
    if (!update) continue;
    const description = ts.displayPartsToString(property.getDocumentationComment(checker)).trim();
    fields.push({ name: property.getName(), type: checker.getTypeOfSymbol(update), description });
  }
  return fields.length > 0 ? converter.rootObject(fields) : null;
}

/** The compiled graph a graph export stands for: itself, what a factory returns, or what compile() makes. */
function compiledGraphOf(checker: ts.TypeChecker, type: ts.Type): ts.Type | undefined {
  let current = type;
  const factory = current.getCallSignatures()[0];
  if (factory && !isCompiledGraphType(checker, current)) current = checker.getAwaitedType(factory.getReturnType()) ?? factory.getReturnType();
  if (isCompiledGraphType(checker, current)) return current;
  const compile = checker.getPropertyOfType(current, "compile");
  const signature = compile && checker.getTypeOfSymbol(compile).getCallSignatures()[0];
  const compiled = signature?.getReturnType();
  return compiled && isCompiledGraphType(checker, compiled) ? compiled : undefined;
}

function emptySchemas(): TypedSchemas {
  return { input: null, output: null, state: null, config: null };
}

/** The project's tsconfig (the nearest one above the graph), made strict enough to see optional fields. */
function compilerOptionsFor(directory: string): { options: ts.CompilerOptions; configFile?: string } {
  const overrides: ts.CompilerOptions = { noEmit: true, strictNullChecks: true, skipLibCheck: true };
  const configFile = ts.findConfigFile(directory, ts.sys.fileExists);
  if (!configFile) {
    return {
      options: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, allowJs: true, ...overrides },
    };
  }
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, dirname(configFile));
  return { options: { ...parsed.options, ...overrides }, configFile };
}

function cachingHost(options: ts.CompilerOptions, cache: SourceFileCache): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const key =
      typeof languageVersion === "object"
        ? `${languageVersion.languageVersion}:${languageVersion.impliedNodeFormat ?? ""}:${fileName}`
        : `${languageVersion}::${fileName}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
    if (file) cache.set(key, file);
    return file;
  };
  return host;
}

export function contentHash(content: Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
