// `gantry control-plane keys create|list|revoke`: the control plane's API keys, kept as hashes in
// its keys file. Apart from the control plane's own command so that it loads only the keys file's
// code, not the builder and the API.
import { parseArgs } from "node:util";
import { loadControlPlaneConfig } from "../config/control-plane-config.js";
import { appendKeyHash, newApiKey, readKeysFile, revokeKey } from "../control-plane/api-keys.js";
import { isUuid } from "../ids.js";
import { KEYS_USAGE } from "./command-help.js";

export function runKeysCommand(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      "data-dir": { type: "string" },
      name: { type: "string" },
      tenant: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(KEYS_USAGE);
    return 0;
  }
  // Only the data dir (or GANTRY_API_KEYS_FILE) matters here, not the secrets key.
  const config = loadControlPlaneConfig({ ...(values["data-dir"] !== undefined ? { dataDir: values["data-dir"] } : {}), dev: true });
  const [command, id] = positionals;
  if (command === "create" && positionals.length === 1) {
    if (values.tenant !== undefined && !isUuid(values.tenant)) {
      console.error(`--tenant must be a tenant's UUID, got '${values.tenant}'`);
      return 2;
    }
    const key = newApiKey();
    const stored = appendKeyHash(config.keysFile, key, (values.name ?? "key").replace(/\s+/g, " "), values.tenant?.toLowerCase());
    console.log(key);
    console.error(
      `Saved its hash to ${config.keysFile} as key ${stored.id}${stored.tenant ? `, acting only in tenant ${stored.tenant}` : ""}. The key is shown only this once.`,
    );
    return 0;
  }
  if (command === "list" && positionals.length === 1) {
    const keys = readKeysFile(config.keysFile);
    for (const key of keys) console.log([key.id, key.name, key.tenant ?? "all tenants", key.created ?? "-"].join("\t"));
    if (keys.length === 0) console.error(`No keys in ${config.keysFile}.`);
    if (config.envApiKeys.length > 0) console.error(`And ${config.envApiKeys.length} from GANTRY_API_KEYS, which only that variable can revoke.`);
    return 0;
  }
  if (command === "revoke" && id !== undefined && positionals.length === 2) {
    const revoked = revokeKey(config.keysFile, id);
    if (!revoked) {
      console.error(`No single key in ${config.keysFile} has the id '${id}': see 'gantry control-plane keys list'.`);
      return 1;
    }
    console.error(`Revoked key ${revoked.id} (${revoked.name}): a running control plane refuses it from the next request.`);
    return 0;
  }
  console.error(`Unknown keys command '${positionals.join(" ")}': use create, list or revoke <id>.\n\n${KEYS_USAGE}`);
  return 2;
}
