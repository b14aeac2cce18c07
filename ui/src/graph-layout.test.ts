import { describe, expect, it } from "vitest";
import { layoutGraph } from "./graph-layout.js";

const rowsOf = (graph: Parameters<typeof layoutGraph>[0]) => {
  const { nodes } = layoutGraph(graph);
  const ys = [...new Set(nodes.map((n) => n.y))].sort((a, b) => a - b);
  return ys.map((y) => nodes.filter((n) => n.y === y).map((n) => n.id));
};

describe("layoutGraph", () => {
  it("puts each node below every node with an edge into it, so __end__ is last", () => {
    const edges = [
      { source: "__start__", target: "draft" },
      { source: "draft", target: "approve" },
      { source: "approve", target: "publish", conditional: true },
      { source: "approve", target: "__end__", conditional: true },
      { source: "publish", target: "__end__" },
    ];
    const nodes = ["__start__", "draft", "approve", "publish", "__end__"].map((id) => ({ id }));
    expect(rowsOf({ nodes, edges })).toEqual([["__start__"], ["draft"], ["approve"], ["publish"], ["__end__"]]);
  });

  it("sets aside the edge that closes a cycle, and puts unreachable nodes at the bottom", () => {
    const nodes = ["__start__", "agent", "tools", "__end__", "orphan"].map((id) => ({ id }));
    const edges = [
      { source: "__start__", target: "agent" },
      { source: "agent", target: "tools", conditional: true },
      { source: "agent", target: "__end__", conditional: true },
      { source: "tools", target: "agent" },
    ];
    expect(rowsOf({ nodes, edges })).toEqual([["__start__"], ["agent"], ["tools", "__end__"], ["orphan"]]);
  });

  it("keeps every edge whose ends are both drawn", () => {
    const { edges } = layoutGraph({
      nodes: [{ id: "a" }, { id: "b" }],
      edges: [
        { source: "a", target: "b" },
        { source: "b", target: "gone" },
      ],
    });
    expect(edges.map((e) => [e.from.id, e.to.id])).toEqual([["a", "b"]]);
  });
});
