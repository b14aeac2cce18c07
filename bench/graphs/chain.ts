// Ten-node chain for benchmarks: each node counts itself, so the output shows every step ran.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ message: Annotation<string>, steps: Annotation<number> });
export const CHAIN_LENGTH = 10;

const builder = new StateGraph(State);
for (let i = 1; i <= CHAIN_LENGTH; i++) builder.addNode(`step${i}`, (state: typeof State.State) => ({ steps: (state.steps ?? 0) + 1 }));
builder.addEdge(START, "step1" as never);
for (let i = 1; i < CHAIN_LENGTH; i++) builder.addEdge(`step${i}` as never, `step${i + 1}` as never);
builder.addEdge(`step${CHAIN_LENGTH}` as never, END);

export const graph = builder.compile();
