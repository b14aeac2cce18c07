import { describe, expect, it } from "vitest";
import { compileSource } from "./compile-source.test-support.js";
import { findSubgraphs } from "./find-subgraphs.js";

// The shapes LangGraph's types have, reduced to what the finder looks at.
const GRAPH_TYPES = `
  declare class Compiled<S> { lg_is_pregel: boolean; "~RunInput": Partial<S>; invoke(input: Partial<S>): Promise<S> }
  declare class Builder<S> {
    addNode(name: string, node: unknown): Builder<S>;
    addNode(nodes: Record<string, unknown>): Builder<S>;
    compile(): Compiled<S>;
  }
`;

const namespacesOf = (text: string, exported = "graph") => {
  const compiled = compileSource(GRAPH_TYPES + text);
  return findSubgraphs(compiled.checker, compiled.variable(exported)).map((s) => s.namespace);
};

describe("finding subgraphs in the source", () => {
  it("follows compiled graphs given to addNode in a builder chain, down to nested ones", () => {
    const namespaces = namespacesOf(`
      const search = new Builder<{ q: string }>().addNode("lookup", () => ({})).compile();
      const research = new Builder<{ q: string }>().addNode("plan", () => ({})).addNode("search", search).compile();
      export const graph = new Builder<{ q: string }>().addNode("research", research).addNode("answer", () => ({})).compile();
    `);
    expect(namespaces).toEqual(["research", "research|search"]);
  });

  it("finds nodes added by statements on a builder that the exported graph compiles", () => {
    const namespaces = namespacesOf(`
      const child = new Builder<{ q: string }>().compile();
      const builder = new Builder<{ q: string }>();
      builder.addNode("child", child);
      export const graph = builder.compile();
    `);
    expect(namespaces).toEqual(["child"]);
  });

  it("counts a function node that calls a subgraph, and nodes given as an object", () => {
    const namespaces = namespacesOf(`
      const child = new Builder<{ q: string }>().compile();
      const other = new Builder<{ q: string }>().compile();
      export const graph = new Builder<{ q: string }>()
        .addNode("wrapped", async (state: { q: string }) => child.invoke(state))
        .addNode({ other, plain: () => ({}) })
        .compile();
    `);
    expect(namespaces.sort()).toEqual(["other", "wrapped"]);
  });

  it("counts a graph built inline as a node under its own name, with the graphs its nodes use below it", () => {
    const namespaces = namespacesOf(`
      const inner = new Builder<{ q: string }>().compile();
      export const graph = new Builder<{ q: string }>()
        .addNode("inline", new Builder<{ q: string }>().addNode("deep", inner).compile())
        .compile();
    `);
    expect(namespaces).toEqual(["inline", "inline|deep"]);
  });

  it("reads through a graph exported as a promise made by an arrow function called in place", () => {
    const namespaces = namespacesOf(`
      const child = new Builder<{ q: string }>().compile();
      const builder = new Builder<{ q: string }>().addNode("child", child);
      export const graph = (async () => builder.compile())();
    `);
    expect(namespaces).toEqual(["child"]);
  });

  it("follows a builder compiled right where it becomes a node, as the reference's nested test graph does", () => {
    const namespaces = namespacesOf(`
      const child = new Builder<{ c: string }>().addNode("c_one", () => ({}));
      const parent = new Builder<{ p: string }>().addNode("p_one", () => ({})).addNode("p_two", child.compile());
      const grandParent = new Builder<{ g: string }>().addNode("gp_one", () => ({})).addNode("gp_two", parent.compile());
      export const graph = grandParent.compile();
    `);
    expect(namespaces).toEqual(["gp_two", "gp_two|p_two"]);
  });
});
