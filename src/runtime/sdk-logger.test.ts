import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { getLogger } from "@langchain/langgraph-sdk/logging";
import { describe, expect, it } from "vitest";
import { createLogger } from "../logging.js";
import { registerSdkLogger, sdkLogger } from "./sdk-logger.js";

function capture(level: "debug" | "info" = "debug") {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level, json: true, write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { log, lines };
}

describe("sdkLogger", () => {
  it("writes a message with its meta object as fields, at the level named, and chains", () => {
    const { log, lines } = capture();
    const logger = sdkLogger(log);
    expect(logger.info("order placed", { order_id: 7 }).warn("stock low")).toBe(logger);
    expect(lines).toEqual([
      expect.objectContaining({ level: "info", msg: "order placed", order_id: 7 }),
      expect.objectContaining({ level: "warn", msg: "stock low" }),
    ]);
  });

  it("folds winston's other levels onto info and debug, and keeps the threshold", () => {
    const { log, lines } = capture("info");
    const logger = sdkLogger(log);
    logger.http("GET /x");
    logger.verbose("hidden at info");
    logger.silly("hidden too");
    logger.error("broken");
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ["info", "GET /x"],
      ["error", "broken"],
    ]);
  });

  it("reads an info object's message, an Error's message and stack, keeps other arguments, and keeps its own time, level and msg", () => {
    const { log, lines } = capture();
    const logger = sdkLogger(log);
    logger.info({ message: "from an object", user: "ada" });
    logger.error("lookup failed", new Error("timeout"));
    logger.debug("counts", 1, "two");
    logger.warn("levelled", { level: "error", msg: "other", time: 0 });
    expect(lines[0]).toMatchObject({ msg: "from an object", user: "ada" });
    expect(lines[1]).toMatchObject({ msg: "lookup failed", err: { name: "Error", message: "timeout" } });
    expect((lines[1]!.err as { stack: string }).stack).toContain("timeout");
    expect(lines[2]).toMatchObject({ msg: "counts", args: [1, "two"] });
    expect(lines[3]).toMatchObject({ level: "warn", msg: "levelled" });
    expect(typeof lines[3]!.time).toBe("string");
  });

  it("is what the SDK's getLogger() returns once registered, and names the run, thread, graph and node a graph logs from", async () => {
    const { log, lines } = capture();
    registerSdkLogger(log);
    const State = Annotation.Root({ n: Annotation<number> });
    const graph = new StateGraph(State)
      .addNode("count", (state: typeof State.State) => {
        getLogger().info("counting", { n: state.n });
        return { n: state.n + 1 };
      })
      .addEdge(START, "count")
      .addEdge("count", END)
      .compile();
    await graph.invoke({ n: 1 }, { configurable: { run_id: "r-1", thread_id: "t-1", graph_id: "counter", assistant_id: "a-1" } });
    getLogger().info("outside any run");
    expect(lines).toEqual([
      expect.objectContaining({ msg: "counting", n: 1, run_id: "r-1", thread_id: "t-1", graph_id: "counter", assistant_id: "a-1", langgraph_node: "count" }),
      expect.not.objectContaining({ run_id: expect.anything() }),
    ]);
  });
});
