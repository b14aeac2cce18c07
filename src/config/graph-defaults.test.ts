import { describe, expect, it } from "vitest";
import { StartupError } from "../errors.js";
import { parseGraphDefaults } from "./graph-defaults.js";

describe("LANGGRAPH_CONFIG", () => {
  it("splits each graph's entry into the assistants' context and the rest of their config", () => {
    const text = JSON.stringify({
      agent: { configurable: { model: "gpt-4o" }, recursion_limit: 12, tags: ["prod"], context: { tier: "pro" } },
      summarizer: { context: { length: "short" } },
      other: {},
    });
    expect(parseGraphDefaults(text)).toEqual({
      agent: { config: { configurable: { model: "gpt-4o" }, recursion_limit: 12, tags: ["prod"] }, context: { tier: "pro" } },
      summarizer: { config: {}, context: { length: "short" } },
      other: { config: {}, context: {} },
    });
  });

  it("means no defaults when unset or blank", () => {
    expect(parseGraphDefaults(undefined)).toEqual({});
    expect(parseGraphDefaults("  ")).toEqual({});
  });

  it("stops start-up on anything else, naming the variable and the place", () => {
    const cases: Array<[string, RegExp]> = [
      ["{agent: {}}", /LANGGRAPH_CONFIG is not valid JSON/],
      ["[1, 2]", /LANGGRAPH_CONFIG is invalid: .*JSON object keyed by graph id/],
      ['"agent"', /LANGGRAPH_CONFIG is invalid/],
      ['{"agent": 5}', /LANGGRAPH_CONFIG is invalid at 'agent'/],
      ['{"agent": {"context": "pro"}}', /LANGGRAPH_CONFIG is invalid at 'agent.context'/],
      ['{"agent": {"configurable": [1]}}', /LANGGRAPH_CONFIG is invalid at 'agent.configurable'/],
    ];
    for (const [text, message] of cases) {
      expect(() => parseGraphDefaults(text), text).toThrow(StartupError);
      expect(() => parseGraphDefaults(text), text).toThrow(message);
    }
  });
});
