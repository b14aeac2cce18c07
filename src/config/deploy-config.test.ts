import { describe, expect, it } from "vitest";
import { loadDeployOptions } from "./deploy-config.js";

describe("gantry deploy options", () => {
  it("defaults to a local control plane, polling every second for 15 minutes", () => {
    expect(loadDeployOptions({ name: "a" }, {})).toMatchObject({
      url: "http://127.0.0.1:8124",
      ref: "main",
      configPath: "langgraph.json",
      pollMs: 1000,
      timeoutMs: 900_000,
    });
  });

  it("takes a secret's value from the environment when only its name is given", () => {
    const options = loadDeployOptions({ name: "a", secret: ["A=1=2", "B"] }, { B: "from-env" });
    expect(options.secrets).toEqual([
      { name: "A", value: "1=2" },
      { name: "B", value: "from-env" },
    ]);
    expect(() => loadDeployOptions({ name: "a", secret: ["MISSING"] }, {})).toThrow(/MISSING is not set/);
  });

  it("refuses a missing name and bad intervals", () => {
    expect(() => loadDeployOptions({}, {})).toThrow(/--name is required/);
    expect(() => loadDeployOptions({ name: "a", timeout: "soon" }, {})).toThrow(/--timeout/);
  });
});
