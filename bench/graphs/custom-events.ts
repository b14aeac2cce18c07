// Emits `count` custom events from one node, for stream throughput benchmarks.
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";

const State = Annotation.Root({ count: Annotation<number> });

export const graph = new StateGraph(State)
  .addNode("emit", (state, config: LangGraphRunnableConfig) => {
    for (let i = 0; i < state.count; i++) config.writer?.({ i });
    return {};
  })
  .addEdge(START, "emit")
  .addEdge("emit", END)
  .compile();
