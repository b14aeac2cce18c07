#!/usr/bin/env node
// Registers tsx so Gantry and the user's graphs load as TypeScript, with no build step. Both of its
// loaders: in a project whose package.json is not "type": "module" (what `npm init` writes), Node
// loads a graph's .ts/.js file through require(), and only the CommonJS loader turns its `import`
// statements into something require() can run.
import { loadServerPackages, serverCommand } from "./server-packages.js";

const command = serverCommand(process.argv.slice(2));
if (command) await loadServerPackages(command);
const { register: registerCommonJs } = await import("tsx/cjs/api");
const { register } = await import("tsx/esm/api");
registerCommonJs();
register();
await import("../src/cli/main.ts");
