// The fault proxy against a real echo server: bytes go through, cutAll ends open connections
// (and only those), pause holds bytes and new connections until resume.
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

let echo: Server;
let proxy: TcpProxy;

beforeAll(async () => {
  echo = createServer((socket) => {
    // The proxy resets its upstream side too (cutAll("reset")).
    socket.on("error", () => {});
    socket.pipe(socket);
  });
  await new Promise<void>((done) => echo.listen(0, "127.0.0.1", () => done()));
  const { port } = echo.address() as { port: number };
  proxy = await startTcpProxy({ target: { host: "127.0.0.1", port } });
});

afterAll(async () => {
  await proxy.close();
  await new Promise<void>((done) => echo.close(() => done()));
});

function open(): Promise<Socket> {
  return new Promise((done, reject) => {
    const socket = connect({ host: "127.0.0.1", port: proxy.port }, () => done(socket));
    socket.once("error", reject);
  });
}

function nextData(socket: Socket): Promise<string> {
  return new Promise((done) => socket.once("data", (chunk) => done(chunk.toString())));
}

function closed(socket: Socket): Promise<void> {
  return new Promise((done) => socket.once("close", () => done()));
}

describe("startTcpProxy", () => {
  it("forwards bytes both ways and counts connections", async () => {
    const socket = await open();
    const reply = nextData(socket);
    socket.write("hello");
    expect(await reply).toBe("hello");
    expect(proxy.connections()).toBe(1);
    socket.destroy();
    await closed(socket);
  });

  it("cutAll ends open connections, with FIN or RST, and later ones still work", async () => {
    const first = await open();
    const second = await open();
    second.on("error", () => {});
    const firstGone = closed(first);
    proxy.cutAll();
    await firstGone;
    second.destroy();

    const third = await open();
    const reset = new Promise<string>((done) => third.once("error", (err: NodeJS.ErrnoException) => done(err.code ?? "")));
    await expectEcho(third, "again");
    proxy.cutAll("reset");
    expect(await reset).toBe("ECONNRESET");
  });

  it("pause holds bytes and new connections until resume", async () => {
    const socket = await open();
    await expectEcho(socket, "before");
    proxy.pause();
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.write("held");
    const late = await open();
    const lateReply = nextData(late);
    late.write("waiting");
    await expect.poll(() => proxy.connections()).toBe(2);
    expect(await echoConnections()).toBe(1);
    // A round trip through the event loop several times over: nothing may have come back.
    for (let i = 0; i < 20; i++) await new Promise((done) => setImmediate(done));
    expect(received).toBe("");
    proxy.resume();
    expect(await lateReply).toBe("waiting");
    await expect.poll(() => received).toBe("held");
    socket.destroy();
    late.destroy();
  });
});

function echoConnections(): Promise<number> {
  return new Promise((done, reject) => echo.getConnections((err, count) => (err ? reject(err) : done(count))));
}

async function expectEcho(socket: Socket, text: string): Promise<void> {
  const reply = nextData(socket);
  socket.write(text);
  expect(await reply).toBe(text);
}
