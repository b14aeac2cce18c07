// Builds the thread/run view into ui/dist, which `gantry dev` serves at /ui (src/server/ui.ts).
// Relative asset URLs: the server adds a <base> naming /ui under any mount prefix.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 400 },
  logLevel: "warn",
});
