// Builds a fixture page with Vite into a temp directory and serves it from its own origin (a
// bare node:http server on port 0), so the page calls the API under test cross-origin, as an
// application deployed apart from its agent server does.
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { build } from "vite";

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css" };

export interface ServedPage {
  url: string;
  close(): Promise<void>;
}

export async function buildAndServePage(root: string): Promise<ServedPage> {
  const outDir = await mkdtemp(join(tmpdir(), "gantry-page-"));
  // "error": the React packages' "use client" directives make Rolldown warn once per module.
  await build({ root, base: "./", configFile: false, logLevel: "error", build: { outDir, emptyOutDir: true } });
  const server = createServer(async (req, res) => {
    const path = normalize(new URL(req.url ?? "/", "http://page").pathname).replace(/^(\.\.[/\\])+/, "");
    const file = join(outDir, path.endsWith("/") ? `${path}index.html` : path);
    const found = await stat(file).catch(() => undefined);
    if (!found?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
      await rm(outDir, { recursive: true, force: true });
    },
  };
}
