// A TCP port free on 127.0.0.1 right now, for a private server a test starts (Redis, PostgreSQL).
import { createServer } from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}
