// Serves the thread/run view at /gantry: files from its build output (ui/dist, made by `npm run build`),
// and index.html for any other path under /gantry, since the app routes in the browser. The app only
// calls the public API, so this module serves files and nothing else. The control plane serves
// the same build (its dashboard, and each deployment's /gantry) with the page and file helpers below.
import { readFile } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Hono } from "hono";
import { notFound } from "../errors.js";
import type { AppEnv } from "./app-env.js";

/**
 * Where the view lives. Not /ui: the platform serves generative UI there (`POST /ui/{assistant_id}`
 * and the bundles under it), and a path named for Gantry collides with neither the platform's
 * routes nor a project's own `http.app` routes.
 */
export const VIEWER_PATH = "/gantry";

/** Where `npm run build` writes the UI (vite's outDir in ui/vite.config.ts). */
export const UI_BUILD_DIR = fileURLToPath(new URL("../../ui/dist", import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".woff2": "font/woff2",
};

// Vite puts a content hash in every file name under assets/, so those never change.
const IMMUTABLE = "public, max-age=31536000, immutable";

export function mountUi(app: Hono<AppEnv>, options: { dir: string; prefix: string }): void {
  const dir = resolve(options.dir);
  const handler = async (c: Context<AppEnv>) => {
    c.set("routePattern", `${VIEWER_PATH}/*`);
    const path = c.req.path.slice(options.prefix.length + VIEWER_PATH.length);
    // A path with an extension names a file; anything else is a page of the app.
    if (extname(path) !== "") return serveUiFile(c, dir, path);
    return serveUiPage(c, dir, "index.html", `${options.prefix}${VIEWER_PATH}/`);
  };
  app.get(VIEWER_PATH, handler);
  app.get(`${VIEWER_PATH}/*`, handler);
  // Where the view used to be; only the bare path, since /ui/... belongs to generative UI.
  app.get("/ui", (c) => {
    c.set("routePattern", "/ui");
    return c.redirect(`${options.prefix}${VIEWER_PATH}/`, 302);
  });
}

/** An HTML entry of the build (`index.html`, `dashboard.html`), its pages and assets based at `base`. */
export async function serveUiPage(c: Context, dir: string, entry: string, base: string): Promise<Response> {
  const html = await readOrUndefined(resolve(dir, entry));
  if (html === undefined) {
    throw notFound(`The UI is not built (no ${resolve(dir, entry)}): run \`npm run build\` in the Gantry checkout, then reload`);
  }
  // The build uses relative asset URLs; the base makes them resolve from any page of the app and
  // tells the app where the API is (the mount prefix).
  const page = html.toString("utf8").replace("<head>", `<head><base href="${base}">`);
  return c.body(page, 200, { "content-type": CONTENT_TYPES[".html"]!, "cache-control": "no-cache" });
}

/** A file of the build by its path under the build dir (`/assets/index-1a2b.js`). */
export async function serveUiFile(c: Context, dir: string, path: string): Promise<Response> {
  const file = resolve(dir, "." + path);
  const data = file.startsWith(dir + sep) ? await readOrUndefined(file) : undefined;
  if (data === undefined) throw notFound(`No UI file ${path}; if the UI was rebuilt, reload the page`);
  return c.body(new Uint8Array(data), 200, {
    "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
    "cache-control": path.startsWith("/assets/") ? IMMUTABLE : "no-cache",
    "x-content-type-options": "nosniff",
  });
}

async function readOrUndefined(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "EISDIR") return undefined;
    throw err;
  }
}
