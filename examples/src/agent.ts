// An example agent: it answers each user message with a greeting and a word count. A real
// @langchain/langgraph graph with a typed zod state; swap the `respond` node for a chat model call.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesZodMeta, START, StateGraph } from "@langchain/langgraph";
import { withLangGraph } from "@langchain/langgraph/zod";
import { z } from "zod";

const State = z.object({
  messages: withLangGraph(z.custom<BaseMessage[]>(), MessagesZodMeta),
  turns: z.number().default(0),
});

function respond(state: z.infer<typeof State>) {
  const last = state.messages.at(-1);
  const text = typeof last?.content === "string" ? last.content : "";
  const words = text.split(/\s+/).filter(Boolean).length;
  const greeting = process.env.AGENT_GREETING ?? "Hello";
  return {
    messages: [new AIMessage(`${greeting}! You said ${words} word${words === 1 ? "" : "s"}.`)],
    turns: state.turns + 1,
  };
}

export const graph = new StateGraph(State).addNode("respond", respond).addEdge(START, "respond").addEdge("respond", END).compile();

graph.name = "agent";
