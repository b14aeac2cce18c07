// Reads the JSON Schemas of a graph, and of the subgraphs it uses, from its TypeScript types: the
// compiler resolves the exported graph's type with the project's own tsconfig and its own copy of
// @langchain/langgraph, and the type slots LangGraph keeps on a compiled graph (~RunInput,
// ~InputType, ~OutputType, builder._configSchema) say what its state, input, output and config
// are. CPU-heavy (seconds): callers run it on a worker thread and cache the result.
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

/** A graph's schemas ("" for the graph itself, "research" and "research|search" for its subgraphs), or why there are none. */
export type GraphExtraction = { namespaces: Record<string, TypedSchemas> } | { error: string };

export interface Extraction {
  graphs: Record<string, GraphExtraction>;
  /** Every file the compilers read but TypeScript's own lib files, with the sha256 of its content: what the result depends on. */
  files: Record<string, string>;
}

export interface ExtractTarget {
  graphId: string;
  file: string;
  exportName: string;
}

/**
 * The schemas of every graph given, from one program per tsconfig: the declaration files of
 * @langchain/core and langgraph, most of the cost, are parsed and bound once for all of them.
 */
export function extractTypedSchemas(targets: ExtractTarget[]): Extraction {
  const groups = new Map<string, { options: ts.CompilerOptions; targets: ExtractTarget[] }>();
  for (const target of targets) {
    const { options, configFile } = compilerOptionsFor(dirname(target.file));
    const group = groups.get(configFile ?? "") ?? { options, targets: [] };
    group.targets.push(target);
    groups.set(configFile ?? "", group);
  }
  const graphs: Record<string, GraphExtraction> = {};
  const files: Record<string, string> = {};
  for (const [configFile, group] of groups) {
    const program = ts.createProgram({ rootNames: group.targets.map((t) => t.file), options: group.options });
    for (const target of group.targets) {
      try {
        graphs[target.graphId] = { namespaces: extractGraph(program, target) };
      } catch (err) {
        graphs[target.graphId] = { error: err instanceof Error ? err.message : String(err) };
      }
    }
    for (const file of program.getSourceFiles()) {
      if (!program.isSourceFileDefaultLibrary(file)) files[file.fileName] = contentHash(readFileSync(file.fileName));
    }
    if (configFile) files[configFile] = contentHash(readFileSync(configFile));
  }
  return { graphs, files };
}

function extractGraph(program: ts.Program, target: ExtractTarget): Record<string, TypedSchemas> {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(target.file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${target.file} is not a module the TypeScript compiler can read`);
  let exported = checker.getExportsOfModule(moduleSymbol).find((s) => s.getName() === target.exportName);
  if (!exported) throw new Error(`${target.file} has no export named '${target.exportName}'`);
  if (exported.flags & ts.SymbolFlags.Alias) exported = checker.getAliasedSymbol(exported);

  const converter = new TypeSchemaConverter(program);
  const root = compiledGraphOf(checker, checker.getTypeOfSymbol(exported));
  if (!root) throw new Error(`The type of '${target.exportName}' in ${target.file} is not a LangGraph graph`);
  const namespaces: Record<string, TypedSchemas> = { "": schemasOf(checker, converter, root) };
  const declaration = exported.valueDeclaration;
  if (declaration && ts.isVariableDeclaration(declaration)) {
    for (const { namespace, node } of findSubgraphs(checker, declaration)) {
      const compiled = compiledGraphOf(checker, checker.getTypeAtLocation(node));
      if (compiled) namespaces[namespace] = schemasOf(checker, converter, compiled);
    }
  }
  return namespaces;
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

/**
 * The compiled graph a graph export stands for: itself, what a promise of one resolves to, what a
 * factory returns, or what compile() makes.
 */
function compiledGraphOf(checker: ts.TypeChecker, type: ts.Type): ts.Type | undefined {
  let current = checker.getAwaitedType(type) ?? type;
  const factory = current.getCallSignatures()[0];
  if (factory && !isCompiledGraphType(checker, current)) current = checker.getAwaitedType(factory.getReturnType()) ?? factory.getReturnType();
  if (isCompiledGraphType(checker, current)) return current;
  const compile = checker.getPropertyOfType(current, "compile");
  const signature = compile && checker.getTypeOfSymbol(compile).getCallSignatures()[0];
  const compiled = signature?.getReturnType();
  return compiled && isCompiledGraphType(checker, compiled) ? compiled : undefined;
}

/** The project's tsconfig (the nearest one above the graph), made strict enough to see optional fields. */
function compilerOptionsFor(directory: string): { options: ts.CompilerOptions; configFile?: string } {
  const overrides: ts.CompilerOptions = { noEmit: true, strictNullChecks: true, skipLibCheck: true };
  const configFile = ts.findConfigFile(directory, ts.sys.fileExists);
  if (!configFile) {
    return {
      options: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        allowJs: true,
        ...overrides,
      },
    };
  }
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(read.config ?? {}, ts.sys, dirname(configFile));
  return { options: { ...parsed.options, ...overrides }, configFile };
}

export function contentHash(content: Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
