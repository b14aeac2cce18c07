import { describe, expect, it } from "vitest";
import { histogram, quantile } from "./histogram.js";

const BOUNDS = [0.1, 0.5, 1, 5];

describe("histogram percentiles", () => {
  it("interpolate inside the bucket the rank falls in, as histogram_quantile does", () => {
    // 10 observations: 4 at or under 0.1, 8 at or under 0.5, all 10 at or under 1.
    expect(quantile(0.5, BOUNDS, [4, 8, 10, 10], 10)).toBeCloseTo(0.1 + 0.4 * (1 / 4));
    expect(quantile(0.2, BOUNDS, [4, 8, 10, 10], 10)).toBeCloseTo(0.05);
    expect(quantile(0.95, BOUNDS, [4, 8, 10, 10], 10)).toBeCloseTo(0.5 + 0.5 * (1.5 / 2));
  });

  it("answer the last bound for ranks past it, and null before any observation", () => {
    expect(quantile(0.99, BOUNDS, [0, 0, 0, 1], 2)).toBe(5);
    expect(quantile(0.5, BOUNDS, [0, 0, 0, 0], 0)).toBeNull();
  });

  it("come with each label's series in the JSON form", () => {
    const h = histogram("x_seconds", "help", "status", BOUNDS);
    for (const seconds of [0.05, 0.3, 0.3, 0.7]) h.observe("success", seconds);
    const success = h.json().success!;
    expect(success).toMatchObject({ count: 4, buckets: { "0.1": 1, "0.5": 3, "1": 4, "5": 4 } });
    expect(success.p50).toBeCloseTo(0.1 + 0.4 * (1 / 2));
    expect(success.p99).toBeCloseTo(0.5 + 0.5 * (0.96 / 1));
  });
});
