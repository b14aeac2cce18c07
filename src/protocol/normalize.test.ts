import { describe, expect, it } from "vitest";
import { protocolNormalizer, protocolState } from "./normalize.js";

const event = (method: string, data: unknown, namespace: string[] = [], node?: string) => ({
  method,
  params: { namespace, timestamp: 1, ...(node ? { node } : {}), data },
});

describe("protocolNormalizer", () => {
  it("drops the root lifecycle (the server says how the run ended) and keeps a subgraph's", () => {
    const n = protocolNormalizer();
    expect(n.see(event("lifecycle", { event: "completed", graph_name: "root" })).protocol).toEqual([]);
    expect(n.see(event("lifecycle", { event: "started", graph_name: "child" }, ["child:1"])).protocol).toEqual([
      event("lifecycle", { event: "started", graph_name: "child" }, ["child:1"]),
    ]);
  });

  it("turns an interrupt into one input.requested per id, and keeps the state with it for the classic log", () => {
    const n = protocolNormalizer();
    n.see(event("values", { text: "x" }));
    const interrupt = [{ id: "i1", value: "question" }];
    const fromUpdates = n.see(event("updates", { node: "__interrupt__", values: interrupt }));
    expect(fromUpdates.protocol).toEqual([
      { method: "input.requested", params: { namespace: [], timestamp: 1, data: { interrupt_id: "i1", payload: "question" } } },
    ]);
    const fromValues = n.see(event("values", { __interrupt__: interrupt }));
    expect(fromValues.protocol).toEqual([]);
    expect(fromValues.classic).toEqual([{ event: "values", data: { text: "x", __interrupt__: interrupt } }]);
    expect(n.interrupted).toBe(true);
  });

  it("gives updates their node, named custom channels a name, and subgraph classic events their namespace", () => {
    const n = protocolNormalizer();
    const update = n.see(event("updates", { node: "inner", values: { trail: ["inner"] } }, ["child:1"]));
    expect(update.protocol[0]).toEqual(event("updates", { trail: ["inner"] }, ["child:1"], "inner"));
    expect(update.classic).toEqual([{ event: "updates|child:1", data: { inner: { trail: ["inner"] } } }]);
    expect(n.see(event("custom:progress", { done: 1 })).protocol[0]!.params.data).toEqual({ name: "progress", payload: { done: 1 } });
    expect(n.see(event("custom", { payload: { n: 0 } })).classic).toEqual([{ event: "custom", data: { n: 0 } }]);
  });
});

describe("protocolState", () => {
  it("shapes messages as the protocol does and leaves other values alone", () => {
    const state = {
      messages: [
        { type: "user", content: "hi", id: "h1", additional_kwargs: {}, response_metadata: {} },
        { type: "ai", content: "", id: "a1", tool_calls: [{ id: "c1", name: "add", args: { a: 1 }, type: "tool_call" }], usage_metadata: {} },
        { type: "tool", content: "3", tool_call_id: "c1", status: "success", id: "t1" },
      ],
      count: 2,
    };
    expect(protocolState(state)).toEqual({
      messages: [
        { type: "human", content: "hi", id: "h1" },
        { type: "ai", content: "", id: "a1", tool_calls: [{ id: "c1", name: "add", args: { a: 1 }, type: "tool_call" }] },
        { type: "tool", content: "3", id: "t1", tool_call_id: "c1", status: "success" },
      ],
      count: 2,
    });
  });
});
