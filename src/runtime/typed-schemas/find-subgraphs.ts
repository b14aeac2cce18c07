// Finds, in the source, the compiled graphs a graph uses as nodes, and the namespace each one runs
// under ("research", "research|search"): the names LangGraph reports for subgraphs at run time.
// A node is a subgraph when addNode is given a compiled graph (a variable, or compiled right there
// as in `addNode("child", child.compile())`), or a function or call that refers to one; the
// graph's builder may be built up in the variable's initializer (a chain) or by statements on a
// builder variable that the exported graph compiles.
import ts from "typescript";

export interface FoundSubgraph {
  namespace: string;
  /** Where the subgraph's compiled type is read: its variable's name, or the expression compiling it. */
  node: ts.Node;
}

/** A graph's source: its variable, or an expression that builds it in place. */
type GraphSource = ts.VariableDeclaration | ts.Expression;

export function findSubgraphs(checker: ts.TypeChecker, root: ts.VariableDeclaration): FoundSubgraph[] {
  const found: FoundSubgraph[] = [];
  const visit = (source: GraphSource, prefix: string[], path: Set<ts.Node>) => {
    for (const { node, subgraph } of addNodeCalls(checker, source)) {
      if (path.has(subgraph)) continue;
      const namespace = [...prefix, node];
      found.push({ namespace: namespace.join("|"), node: ts.isVariableDeclaration(subgraph) ? subgraph.name : subgraph });
      visit(subgraph, namespace, new Set([...path, subgraph]));
    }
  };
  visit(root, [], new Set([root]));
  return found;
}

/** A type is a compiled graph when it carries Pregel's marker or the compiled graph's type slots. */
export function isCompiledGraphType(checker: ts.TypeChecker, type: ts.Type): boolean {
  return checker.getPropertyOfType(type, "lg_is_pregel") !== undefined || checker.getPropertyOfType(type, "~RunInput") !== undefined;
}

function addNodeCalls(checker: ts.TypeChecker, source: GraphSource): Array<{ node: string; subgraph: GraphSource }> {
  const builders = builderChain(checker, source);
  const builderSymbols = new Set(builders.map((d) => checker.getSymbolAtLocation(d.name)).filter((s) => s !== undefined));
  const calls: ts.CallExpression[] = [];
  const collect = (node: ts.Node, anywhere: boolean) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "addNode") {
      if (anywhere || builderSymbols.has(checker.getSymbolAtLocation(rootIdentifier(node.expression.expression)) as ts.Symbol)) {
        calls.push(node);
      }
      // Not into the arguments: a graph built inline there has nodes of its own, not ours.
      collect(node.expression.expression, anywhere);
      return;
    }
    ts.forEachChild(node, (child) => collect(child, anywhere));
  };
  if (!ts.isVariableDeclaration(source)) collect(source, true);
  for (const builder of builders) if (builder.initializer) collect(builder.initializer, true);
  // Statements such as `builder.addNode("research", research);` elsewhere in the builder's file.
  for (const file of new Set(builders.map((b) => b.getSourceFile()))) {
    for (const statement of file.statements) if (!ts.isVariableStatement(statement)) collect(statement, false);
  }

  const result: Array<{ node: string; subgraph: GraphSource }> = [];
  const seen = new Set<string>();
  for (const call of calls) {
    for (const [node, argument] of nodeArguments(call)) {
      const subgraph = referencedGraph(checker, argument);
      if (subgraph && !seen.has(node)) {
        seen.add(node);
        result.push({ node, subgraph });
      }
    }
  }
  return result;
}

/**
 * The graph's variable (when it has one) and the graph variables it builds on (`builder` in
 * `builder.compile()`), following initializers down.
 */
function builderChain(checker: ts.TypeChecker, source: GraphSource): ts.VariableDeclaration[] {
  const chain: ts.VariableDeclaration[] = [];
  const follow = (expression: ts.Expression) => {
    const receiver = rootIdentifier(expression);
    if (!ts.isIdentifier(receiver)) return;
    const target = variableOf(checker, receiver);
    if (target && !chain.includes(target)) chain.push(target);
  };
  if (ts.isVariableDeclaration(source)) chain.push(source);
  else follow(source);
  for (let i = 0; i < chain.length; i++) {
    const initializer = chain[i]!.initializer;
    if (initializer) follow(initializer);
  }
  return chain;
}

/** `addNode("name", x)` and `addNode({ name: x, ... })`. */
function nodeArguments(call: ts.CallExpression): Array<[string, ts.Expression]> {
  const [first, second] = call.arguments;
  if (first && ts.isStringLiteralLike(first) && second) return [[first.text, second]];
  if (first && ts.isObjectLiteralExpression(first)) {
    return first.properties.flatMap((p): Array<[string, ts.Expression]> => {
      if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name))) return [[p.name.text, p.initializer]];
      if (ts.isShorthandPropertyAssignment(p)) return [[p.name.text, p.name]];
      return [];
    });
  }
  return [];
}

/**
 * The compiled graph a node argument is: a graph compiled right there (its own nodes are read from
 * the expression and the builders it compiles, never taken for it), a compiled graph variable, or
 * the first one a function or call uses.
 */
function referencedGraph(checker: ts.TypeChecker, argument: ts.Expression): GraphSource | undefined {
  if (!ts.isIdentifier(argument) && isCompiledGraphType(checker, checker.getTypeAtLocation(argument))) return argument;
  let found: ts.VariableDeclaration | undefined;
  const visit = (node: ts.Node) => {
    if (found) return;
    if (ts.isIdentifier(node)) {
      const declaration = variableOf(checker, node);
      if (declaration && isCompiledGraphType(checker, checker.getTypeAtLocation(declaration.name))) found = declaration;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(argument);
  return found;
}

function variableOf(checker: ts.TypeChecker, identifier: ts.Node): ts.VariableDeclaration | undefined {
  let symbol = checker.getSymbolAtLocation(identifier);
  const shorthand = identifier.parent;
  if (shorthand && ts.isShorthandPropertyAssignment(shorthand)) symbol = checker.getShorthandAssignmentValueSymbol(shorthand);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol?.valueDeclaration;
  return declaration && ts.isVariableDeclaration(declaration) ? declaration : undefined;
}

/**
 * `a` in `a.b(c).d`, following calls and property accesses down to the first receiver, and into
 * an arrow function called in place (`(async () => a.compile())()`).
 */
function rootIdentifier(expression: ts.Expression): ts.Expression {
  let current = expression;
  for (;;) {
    if (ts.isCallExpression(current)) {
      let callee: ts.Expression = current.expression;
      while (ts.isParenthesizedExpression(callee)) callee = callee.expression;
      current = ts.isArrowFunction(callee) && !ts.isBlock(callee.body) ? callee.body : current.expression;
    } else if (ts.isPropertyAccessExpression(current)) current = current.expression;
    else if (ts.isAwaitExpression(current) || ts.isParenthesizedExpression(current) || ts.isNonNullExpression(current)) current = current.expression;
    else if (ts.isAsExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
    else return current;
  }
}
