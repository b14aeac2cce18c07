// `gantry control-plane keys create`: mints an API key and keeps its hash. Apart from the control
// plane's own command so that it loads only the keys file's code, not the builder and the API.
import { parseArgs } from "node:util";
import { loadControlPlaneConfig } from "../config/control-plane-config.js";
import { appendKeyHash, newApiKey } from "../control-plane/api-keys.js";
import { KEYS_CREATE_USAGE } from "./command-help.js";

export function runKeysCommand(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { "data-dir": { type: "string" }, name: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    console.log(KEYS_CREATE_USAGE);
    return 0;
  }
  if (positionals[0] !== "create" || positionals.length > 1) {
    console.error(`Unknown keys command '${positionals.join(" ")}': the one there is is 'create'.\n\n${KEYS_CREATE_USAGE}`);
    return 2;
  }
  // Only the data dir matters here; the secrets key is not needed to mint an API key.
  const config = loadControlPlaneConfig({ ...(values["data-dir"] !== undefined ? { dataDir: values["data-dir"] } : {}), dev: true });
  const key = newApiKey();
  appendKeyHash(config.keysFile, key, (values.name ?? "key").replace(/\s+/g, " "));
  console.log(key);
  console.error(`Saved its hash to ${config.keysFile}. The key is shown only this once; a running control plane reads new keys when it restarts.`);
  return 0;
}
