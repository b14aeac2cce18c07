// Run by the builder in a child process (under tsx): loads a langgraph.json and imports every graph
// once, the way `gantry dev` will, so a graph that throws on import fails the build, not the deploy.
import { applyProjectEnv, loadProject } from "../../config/server-config.js";
import { missingEnvFileMessage } from "../../config/langgraph-config.js";
import { createLogger } from "../../logging.js";
import { loadGraphRegistry } from "../../runtime/graph-registry.js";
import { registerSdkLogger } from "../../runtime/sdk-logger.js";

const configPath = process.argv[2];
try {
  if (!configPath) throw new Error("usage: check-graphs <langgraph.json>");
  const project = loadProject(configPath);
  // "Warning: " makes the builder log the line as a warning.
  if (project.missingEnvFile) console.log(`Warning: ${missingEnvFileMessage(project.missingEnvFile)}`);
  applyProjectEnv(project);
  // A graph may take the platform's logger at import, as it will under `gantry serve`.
  registerSdkLogger(createLogger({ level: "info", json: false }));
  const graphs = await loadGraphRegistry(project.graphs);
  console.log(`Imported graph${graphs.ids().length === 1 ? "" : "s"}: ${graphs.ids().join(", ")}`);
  process.exit(0);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
