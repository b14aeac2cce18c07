// Draws an assistant's graph (GET /assistants/{id}/graph) as SVG boxes and arrows; conditional
// edges are dashed, and edges going back up or skipping rows curve around the side.
import { layoutGraph, NODE_HEIGHT, ROW_GAP, type GraphJson, type PlacedEdge } from "../graph-layout.js";

export function GraphDrawing({ graph }: { graph: GraphJson }) {
  const { nodes, edges, width, height } = layoutGraph(graph);
  if (nodes.length === 0) return <p class="muted">This graph has no nodes.</p>;
  return (
    <svg class="graph" viewBox={`0 0 ${width} ${height}`} style={{ maxWidth: `${width}px` }} role="img" aria-label="Graph drawing">
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
        </marker>
      </defs>
      {edges.map((edge, i) => (
        <path key={i} d={edgePath(edge)} class={edge.conditional ? "edge conditional" : "edge"} marker-end="url(#arrow)" />
      ))}
      {nodes.map((node) => (
        <g key={node.id} class={node.id.startsWith("__") ? "node terminal" : "node"} data-node={node.id}>
          <rect x={node.x} y={node.y} width={node.width} height={NODE_HEIGHT} rx="6" />
          <text x={node.x + node.width / 2} y={node.y + NODE_HEIGHT / 2} dominant-baseline="central" text-anchor="middle">
            {node.label}
          </text>
        </g>
      ))}
    </svg>
  );
}

function edgePath({ from, to }: PlacedEdge): string {
  const fromX = from.x + from.width / 2;
  const toX = to.x + to.width / 2;
  const fromBottom = from.y + NODE_HEIGHT;
  // An edge skipping rows bows out to the right so it does not run through the nodes between.
  if (to.y > fromBottom + ROW_GAP)
    return `M ${fromX} ${fromBottom} C ${fromX + 90} ${fromBottom + ROW_GAP}, ${toX + 90} ${to.y - ROW_GAP}, ${toX + 12} ${to.y}`;
  if (to.y > from.y) return `M ${fromX} ${fromBottom} L ${toX} ${to.y}`;
  // Back edge or same row: leave from the right side, loop out and come back in on the right.
  const right = Math.max(from.x + from.width, to.x + to.width) + 20;
  const fromY = from.y + NODE_HEIGHT / 2;
  const toY = to.y + NODE_HEIGHT / 2;
  return `M ${from.x + from.width} ${fromY} C ${right} ${fromY}, ${right} ${toY}, ${to.x + to.width} ${toY}`;
}
