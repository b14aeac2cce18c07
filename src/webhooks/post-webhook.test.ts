import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "./post-webhook.js";

// A real receiver on loopback: the address the default policy refuses, so each case shows whether
// the check at delivery let the request through.
describe("postWebhook", () => {
  let server: Server;
  let port: number;
  const bodies: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        bodies.push(Buffer.concat(chunks).toString("utf8"));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((done) => server.close(() => done()));
  });

  const post = (host: string, disableLoopback: boolean) =>
    postWebhook(new URL(`http://${host}:${port}/hook`), `{"to":"${host}"}`, {
      headers: { "content-type": "application/json" },
      timeoutMs: 5_000,
      policy: { disable_loopback: disableLoopback },
    });

  it("refuses a loopback address literal before connecting", async () => {
    expect(await post("127.0.0.1", true)).toMatchObject({ kind: "refused", message: expect.stringMatching(/^refused: .*loopback/) });
    expect(bodies).not.toContain('{"to":"127.0.0.1"}');
  });

  it("refuses a name by the address it resolves to, at connection time", async () => {
    const report = await post("localhost", true);
    expect(report).toMatchObject({ kind: "refused", message: expect.stringMatching(/^refused: localhost resolves to .*loopback/) });
    expect(bodies).not.toContain('{"to":"localhost"}');
  });

  it("sends to the same receiver when the policy allows loopback", async () => {
    expect(await post("localhost", false)).toEqual({ kind: "response", status: 204 });
    expect(bodies).toContain('{"to":"localhost"}');
  });
});
