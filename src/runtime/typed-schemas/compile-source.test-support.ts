// Compiles one in-memory TypeScript file for the unit tests of the type readers: a real program and
// checker, without a project on disk.
import ts from "typescript";

const FILE = "/virtual/case.ts";

export interface CompiledSource {
  program: ts.Program;
  checker: ts.TypeChecker;
  source: ts.SourceFile;
  /** The declared type of a type alias or interface, or the type of a variable. */
  typeOf(name: string): ts.Type;
  variable(name: string): ts.VariableDeclaration;
}

export function compileSource(text: string): CompiledSource {
  const options: ts.CompilerOptions = { strict: true, target: ts.ScriptTarget.ES2022, noEmit: true, types: [] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (name === FILE ? ts.createSourceFile(FILE, text, version, true) : getSourceFile(name, version, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === FILE || fileExists(name);
  const program = ts.createProgram({ rootNames: [FILE], options, host });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(FILE)!;
  const declaration = (name: string): ts.Node => {
    let found: ts.Node | undefined;
    const visit = (node: ts.Node) => {
      if ((ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isVariableDeclaration(node)) && node.name.getText(source) === name)
        found = node;
      else ts.forEachChild(node, visit);
    };
    visit(source);
    if (!found) throw new Error(`No declaration named ${name}`);
    return found;
  };
  return {
    program,
    checker,
    source,
    typeOf: (name) => {
      const node = declaration(name);
      return ts.isVariableDeclaration(node) ? checker.getTypeAtLocation(node.name) : checker.getTypeAtLocation(node);
    },
    variable: (name) => declaration(name) as ts.VariableDeclaration,
  };
}
