// Builds the thread/run view (index.html), which `gantry dev` serves at /gantry (src/server/ui.ts), and
// the control plane's dashboard (dashboard.html, src/control-plane/api/dashboard.ts) into ui/dist:
// one build, two entries sharing Preact and the styles. Relative asset URLs: the server adds a
// <base> naming where each page is served.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here("."),
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 400,
    rolldownOptions: { input: { index: here("index.html"), dashboard: here("dashboard.html") } },
  },
  logLevel: "warn",
});
