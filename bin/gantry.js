#!/usr/bin/env node
// Registers tsx so Gantry and the user's graphs load as TypeScript, with no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
