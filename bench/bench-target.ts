// What every comparison metric works with: the servers under test, the error tally, the rows of
// the result table, and the alternation that lets machine noise fall on both servers alike.
import type { Client } from "@langchain/langgraph-sdk";
import type { BenchServer } from "./start-server.js";

export type TargetName = "gantry" | "reference";

export interface Target {
  name: TargetName;
  client: Client;
  server: BenchServer;
}

/** A target for one metric: Gantry/reference ≤ or ≥ `ratio`, or Gantry's own figure ≤ `atMost`. */
export type Goal = { ratio: number } | { atMost: number };

export interface Row {
  metric: string;
  unit: string;
  better: "lower" | "higher";
  gantry?: number;
  reference?: number;
  /** A physical floor measured in the same run (bare HTTP, in-process invoke). */
  floor?: number;
  goal?: Goal;
  /** Samples behind each figure, per target. */
  samples?: Partial<Record<TargetName | "floor", number>>;
}

/** Wrong answers per target and metric: a benchmark that measures wrong answers measures nothing. */
export class ErrorTally {
  readonly counts = new Map<string, number>();
  readonly examples: string[] = [];

  add(target: string, metric: string, detail: string): void {
    const key = `${target}: ${metric}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (this.examples.length < 10) this.examples.push(`${key}: ${detail}`);
  }

  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
}

/** Runs `rounds` rounds, each on every target, swapping the order every round. */
export async function alternate<T extends { name: string }>(targets: T[], rounds: number, body: (target: T, round: number) => Promise<void>): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) await body(target, round);
  }
}

/** Sequential calls to each target in turn, for `seconds` each, untimed; `call` checks the answer. */
export async function warmUpEach<T>(targets: T[], seconds: number, call: (target: T, message: string) => Promise<void>): Promise<void> {
  for (const target of targets) {
    const until = performance.now() + seconds * 1000;
    for (let n = 0; performance.now() < until; n++) await call(target, `warm${n}`);
  }
}

/**
 * Sequential calls in alternating rounds, each timed into its target's `times`; a call that throws
 * is tallied, not timed. `call` checks the answer itself.
 */
export async function timedRounds<T extends { name: string; times: number[] }>(
  targets: T[],
  rounds: number,
  perRound: number,
  errors: ErrorTally,
  call: (target: T, message: string) => Promise<void>,
): Promise<void> {
  await alternate(targets, rounds, async (target, round) => {
    for (let i = 0; i < perRound; i++) {
      const t0 = performance.now();
      try {
        await call(target, `m${round}-${i}`);
        target.times.push(performance.now() - t0);
      } catch (error) {
        errors.add(target.name, "runs.wait", describeError(error));
      }
    }
  });
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 200) : String(error).slice(0, 200);
}
