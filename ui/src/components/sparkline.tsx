// A line of the last samples of one figure, in plain SVG: newest at the right edge, scaled from 0
// to the largest sample shown, so a window that fills up grows leftwards.

const WIDTH = 160;
const HEIGHT = 36;

export function Sparkline({ values, capacity, label }: { values: readonly (number | null)[]; capacity: number; label: string }) {
  const step = WIDTH / Math.max(1, capacity - 1);
  const top = Math.max(...values.map((v) => v ?? 0));
  const y = (v: number) => (top > 0 ? HEIGHT - 2 - (v / top) * (HEIGHT - 4) : HEIGHT - 2);
  const points = values
    .map((v, i) => (v === null ? undefined : `${(WIDTH - (values.length - 1 - i) * step).toFixed(1)},${y(v).toFixed(1)}`))
    .filter((p): p is string => p !== undefined);
  return (
    <svg class="sparkline" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${label}, last ${values.length} samples`}>
      <line class="baseline" x1="0" y1={HEIGHT - 2} x2={WIDTH} y2={HEIGHT - 2} />
      {points.length > 0 && <polyline points={points.join(" ")} data-samples={points.length} />}
    </svg>
  );
}
