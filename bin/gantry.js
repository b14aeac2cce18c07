#!/usr/bin/env node
// Registers tsx so Gantry and the user's graphs load as TypeScript, with no build step. Both of its
// loaders: in a project whose package.json is not "type": "module" (what `npm init` writes), Node
// loads a graph's .ts/.js file through require(), and only the CommonJS loader turns its `import`
// statements into something require() can run.
import { register as registerCommonJs } from "tsx/cjs/api";
import { register } from "tsx/esm/api";

registerCommonJs();
register();
await import("../src/cli/main.ts");
