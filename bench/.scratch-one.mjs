import { Client } from "@langchain/langgraph-sdk";
const c = new Client({ apiUrl: "http://127.0.0.1:8123" });
for (let i = 0; i < 3; i++) await c.runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
await new Promise(r => setTimeout(r, 300));
console.log("MARK");
await c.runs.wait(null, "echo", { input: { messages: [{ role: "user", content: "hi" }] } });
