// One-node echo graph for benchmarks: returns its input message unchanged.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ message: Annotation<string> });

export const graph = new StateGraph(State)
  .addNode("echo", (state) => ({ message: state.message }))
  .addEdge(START, "echo")
  .addEdge("echo", END)
  .compile();
