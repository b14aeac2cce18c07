import { describe, expect, it } from "vitest";
import { attemptResult, backoffMs } from "./retry-policy.js";

const settings = { maxAttempts: 3, retryBaseMs: 1_000, retryMaxMs: 3_000 };
const now = new Date("2026-01-01T00:00:00.000Z");

describe("attemptResult", () => {
  it("counts any 2xx as delivered", () => {
    expect(attemptResult({ kind: "response", status: 204 }, 1, settings, now)).toEqual({ outcome: "delivered" });
  });

  it.each([500, 503, 429, 408])("retries HTTP %i", (status) => {
    const result = attemptResult({ kind: "response", status }, 1, settings, now);
    expect(result).toMatchObject({ outcome: "retry", error: `HTTP ${status}` });
  });

  it("retries network errors and timeouts", () => {
    expect(attemptResult({ kind: "error", message: "timed out after 1000 ms" }, 2, settings, now)).toMatchObject({ outcome: "retry" });
  });

  it.each([400, 401, 404, 410, 301])("does not retry HTTP %i", (status) => {
    expect(attemptResult({ kind: "response", status }, 1, settings, now)).toMatchObject({ outcome: "failed" });
  });

  it("does not retry an address the URL policy refused", () => {
    expect(attemptResult({ kind: "refused", message: "refused: 127.0.0.1 is a loopback address" }, 1, settings, now)).toEqual({
      outcome: "failed",
      error: "refused: 127.0.0.1 is a loopback address: the URL policy refuses this address; not retried",
    });
  });

  it("gives up once the attempts are used", () => {
    expect(attemptResult({ kind: "response", status: 503 }, 3, settings, now)).toEqual({ outcome: "failed", error: "HTTP 503: gave up after 3 attempts" });
  });
});

describe("backoffMs", () => {
  it("doubles from the base, stays within a fifth below it, and is capped", () => {
    for (const [attempt, full] of [
      [1, 1_000],
      [2, 2_000],
      [3, 3_000],
      [9, 3_000],
    ] as const) {
      const wait = backoffMs(attempt, settings);
      expect(wait).toBeLessThanOrEqual(full);
      expect(wait).toBeGreaterThanOrEqual(full * 0.8);
    }
  });
});
