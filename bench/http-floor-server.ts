// The HTTP floor: a bare node:http server that answers every request with one constant JSON body,
// the shape `runs.wait` returns for the echo graph. Whatever a real server spends beyond this is
// its own work; the rest is the client, HTTP and the machine.
import { createServer } from "node:http";

const body = JSON.stringify({ message: "floor" });

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${address.port}` }));
});
process.once("SIGINT", () => server.close(() => process.exit(0)));
