// What the fault fixture's nodes recorded (test/fixtures/faults): one line per node that finished its
// work, whichever process ran it and whatever became of its checkpoint. From these the suite judges
// at-least-once execution the way docs/production.md promises it: a step may run again only if it
// was the step under way when its attempt lost the run.
import { readFile } from "node:fs/promises";

export const NODES = ["a", "stream", "b", "c"] as const;

export interface Execution {
  node: string;
  run_id: string;
  attempt: number;
  pid: number;
}

/** The executions recorded for a run, in the order they finished. */
export async function executionsOf(file: string, runId: string): Promise<Execution[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Execution)
    .filter((e) => e.run_id === runId);
}

/** How many executions beyond the first each node had: the steps executed twice (or more). */
export function extraExecutions(executions: Execution[]): number {
  return executions.length - new Set(executions.map((e) => e.node)).size;
}

/**
 * The repeats the promise does not cover. An attempt that lost its run may have finished the step
 * under way without its checkpoint landing: that step, the last one the attempt recorded, may run
 * once more. Any other repeat is a finished step run twice. Returns "node ×n" for each such node.
 */
export function repeatsBeyondStepUnderWay(executions: Execution[]): string[] {
  const attempts = [...new Set(executions.map((e) => e.attempt))].sort((x, y) => x - y);
  const allowed = new Map<string, number>();
  for (const attempt of attempts.slice(0, -1)) {
    const last = executions.filter((e) => e.attempt === attempt).at(-1)!.node;
    allowed.set(last, (allowed.get(last) ?? 0) + 1);
  }
  const counts = new Map<string, number>();
  for (const e of executions) counts.set(e.node, (counts.get(e.node) ?? 0) + 1);
  return [...counts]
    .filter(([node, count]) => count > 1 + (allowed.get(node) ?? 0))
    .map(
      ([node, count]) =>
        `${node} ×${count} (attempts ${executions
          .filter((e) => e.node === node)
          .map((e) => e.attempt)
          .join(", ")})`,
    );
}

/** The nodes that never finished for the run. */
export function missingNodes(executions: Execution[]): string[] {
  return NODES.filter((node) => !executions.some((e) => e.node === node));
}
