// The least a server can do for runs.wait: node:http, parse the JSON body, graph.invoke the echo
// graph on the path's thread with Gantry's SQLite checkpointer, write the values in one response.
// No run record, no queue, no event log, no validation. What Gantry spends beyond it is the cost
// of durable runs; what it spends beyond in-process graph.invoke is HTTP and the machine.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../src/storage/sqlite/open-sqlite.js";
import { graph } from "./graphs/echo.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-bare-"));
const storage = openSqliteStorage(join(dir, "bare.sqlite"));
graph.checkpointer = storage.checkpoints.saver;

const answer = (res: import("node:http").ServerResponse, status: number, value: unknown) => {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
};

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    // The SDK's threads.create and runs.wait are all the benchmark calls.
    if (req.url === "/threads") return answer(res, 200, { thread_id: crypto.randomUUID() });
    const threadId = /^\/threads\/([^/]+)\/runs\/wait$/.exec(req.url ?? "")?.[1];
    if (!threadId) return answer(res, 404, { detail: "not served here" });
    const { input } = JSON.parse(Buffer.concat(chunks).toString()) as { input: { message: string } };
    graph.invoke(input, { configurable: { thread_id: threadId } }).then(
      (values) => answer(res, 200, values),
      (err: unknown) => answer(res, 500, { detail: String(err) }),
    );
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${address.port}` }));
});
process.once("SIGINT", () => {
  server.close();
  void storage.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
