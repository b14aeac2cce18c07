// Turns the rows of a comparison run into the printed table (Markdown, so the README can take it
// as it is) and the JSON written next to it.
import type { ErrorTally, Row } from "./bench-target.js";

function format(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return "";
  const abs = Math.abs(value);
  return value.toLocaleString("en-US", { maximumFractionDigits: abs >= 100 ? 0 : abs >= 10 ? 1 : 2 });
}

export function ratioOf(row: Row): number | undefined {
  return row.gantry !== undefined && row.reference !== undefined && row.reference !== 0 ? row.gantry / row.reference : undefined;
}

/** Whether Gantry meets the row's goal; undefined when it has none or a figure is missing. */
export function goalMet(row: Row): boolean | undefined {
  if (!row.goal || row.gantry === undefined || Number.isNaN(row.gantry)) return undefined;
  if ("atMost" in row.goal) return row.gantry <= row.goal.atMost;
  const ratio = ratioOf(row);
  if (ratio === undefined || Number.isNaN(ratio)) return undefined;
  return row.better === "lower" ? ratio <= row.goal.ratio : ratio >= row.goal.ratio;
}

function goalText(row: Row): string {
  if (!row.goal) return "";
  if ("atMost" in row.goal) return `≤ ${row.goal.atMost} ${row.unit}`;
  const ratio = row.goal.ratio < 1 ? `1/${Math.round(1 / row.goal.ratio)}` : `${row.goal.ratio}`;
  return `${row.better === "lower" ? "≤" : "≥"} ${ratio}`;
}

export function markdownTable(rows: Row[]): string {
  const lines = ["| metric | unit | Gantry | reference | Gantry ÷ reference | floor | target | met |", "|---|---|--:|--:|--:|--:|---|---|"];
  for (const row of rows) {
    const met = goalMet(row);
    lines.push(
      `| ${row.metric} | ${row.unit} | ${format(row.gantry)} | ${format(row.reference)} | ${format(ratioOf(row))} | ${format(row.floor)} | ${goalText(row)} | ${met === undefined ? "" : met ? "yes" : "**no**"} |`,
    );
  }
  return lines.join("\n");
}

export function errorSummary(errors: ErrorTally): string {
  if (errors.total() === 0) return "errors: 0 (every answer checked)";
  const lines = [`errors: ${errors.total()}`];
  for (const [key, count] of errors.counts) lines.push(`  ${key}: ${count}`);
  lines.push("first ones:", ...errors.examples.map((e) => `  ${e}`));
  return lines.join("\n");
}

export function resultJson(rows: Row[], errors: ErrorTally, extra: Record<string, unknown>): string {
  return JSON.stringify(
    {
      ...extra,
      errors: { total: errors.total(), by_metric: Object.fromEntries(errors.counts), first: errors.examples },
      rows: rows.map((row) => ({ ...row, ratio: ratioOf(row), met: goalMet(row) })),
    },
    null,
    2,
  );
}
