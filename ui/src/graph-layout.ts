// Places a graph's nodes for drawing: each node's row is its longest distance from `__start__`
// once edges that close a cycle are set aside (so every forward edge points down and `__end__`
// sits at the bottom); nodes in a row share the width. Pure, so the drawing stays dumb.
export interface GraphJson {
  nodes: { id: string | number; data?: unknown }[];
  edges: { source: string | number; target: string | number; conditional?: boolean }[];
}

export interface PlacedNode {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
}

export interface PlacedEdge {
  from: PlacedNode;
  to: PlacedNode;
  conditional: boolean;
}

export const NODE_HEIGHT = 32;
export const ROW_GAP = 64;
const COLUMN_GAP = 24;
const CHAR_WIDTH = 7.5;

export function layoutGraph(graph: GraphJson): { nodes: PlacedNode[]; edges: PlacedEdge[]; width: number; height: number } {
  const ids = graph.nodes.map((n) => String(n.id));
  const next = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of graph.edges) next.get(String(e.source))?.push(String(e.target));

  const row = longestPathRows(next, ids.includes("__start__") ? "__start__" : ids[0]);
  // Unreachable nodes go below the rest rather than on top of __start__.
  const deepest = Math.max(0, ...row.values());
  for (const id of ids) if (!row.has(id)) row.set(id, deepest + 1);

  const rows: string[][] = [];
  for (const id of ids) (rows[row.get(id)!] ??= []).push(id);
  const widthOf = (id: string) => Math.max(72, id.length * CHAR_WIDTH + 24);
  const rowWidth = (r: string[]) => r.reduce((sum, id) => sum + widthOf(id), 0) + COLUMN_GAP * (r.length - 1);
  // The extra 90 leaves room for edges that curve out on the right.
  const width = Math.max(...rows.filter(Boolean).map(rowWidth), 0) + 2 * COLUMN_GAP + 90;

  const placed = new Map<string, PlacedNode>();
  rows.forEach((r, index) => {
    if (!r) return;
    let x = (width - rowWidth(r)) / 2;
    for (const id of r) {
      placed.set(id, { id, label: id, x, y: COLUMN_GAP + index * (NODE_HEIGHT + ROW_GAP), width: widthOf(id) });
      x += widthOf(id) + COLUMN_GAP;
    }
  });
  const edges = graph.edges.flatMap((e) => {
    const from = placed.get(String(e.source));
    const to = placed.get(String(e.target));
    return from && to ? [{ from, to, conditional: e.conditional === true }] : [];
  });
  const height = COLUMN_GAP * 2 + rows.length * NODE_HEIGHT + Math.max(0, rows.length - 1) * ROW_GAP;
  return { nodes: [...placed.values()], edges, width, height };
}

function longestPathRows(next: Map<string, string[]>, start: string | undefined): Map<string, number> {
  // Depth-first from the start: an edge to a node still on the stack closes a cycle.
  const back = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const order: string[] = [];
  const visit = (id: string) => {
    state.set(id, "open");
    for (const target of next.get(id) ?? []) {
      if (state.get(target) === "open") back.add(`${id}\u0000${target}`);
      else if (!state.has(target)) visit(target);
    }
    state.set(id, "done");
    order.push(id);
  };
  if (start !== undefined) visit(start);
  const row = new Map<string, number>();
  if (start !== undefined) row.set(start, 0);
  // Reverse post-order is a topological order of the forward edges.
  for (const id of order.reverse()) {
    for (const target of next.get(id) ?? []) {
      if (back.has(`${id}\u0000${target}`)) continue;
      row.set(target, Math.max(row.get(target) ?? 0, row.get(id)! + 1));
    }
  }
  return row;
}
