import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { loadControlPlaneConfig, parseMasterKey } from "./control-plane-config.js";

const KEY = Buffer.alloc(32, 1).toString("base64");

describe("control-plane config", () => {
  it("refuses to start without a secrets key outside dev mode, naming the variable and the fix", () => {
    expect(() => loadControlPlaneConfig({}, {})).toThrow(/GANTRY_SECRETS_KEY is not set.*--dev/);
    expect(loadControlPlaneConfig({ dev: true }, {}).masterKey).toBeUndefined();
  });

  it("reads a 32-byte key as base64 or hex and refuses other lengths", () => {
    expect(parseMasterKey(KEY)).toHaveLength(32);
    expect(parseMasterKey("ab".repeat(32))).toHaveLength(32);
    expect(() => parseMasterKey("c2hvcnQ=")).toThrow(/32 bytes/);
  });

  it("keeps its own keys and settings out of the environment deployments start from", () => {
    const config = loadControlPlaneConfig(
      {},
      { GANTRY_SECRETS_KEY: KEY, GANTRY_API_KEYS: "k1, k2", DATABASE_URL: "postgres://x", PATH: "/bin", GANTRY_WEBHOOK_TIMEOUT_MS: "5" },
    );
    expect(config.envApiKeys).toEqual(["k1", "k2"]);
    expect(config.childEnv).toEqual({ PATH: "/bin", GANTRY_WEBHOOK_TIMEOUT_MS: "5" });
  });

  it("starts deployments from an allowlist of its environment, never the rest of it", () => {
    const config = loadControlPlaneConfig(
      {},
      { GANTRY_SECRETS_KEY: KEY, PATH: "/bin", TZ: "UTC", HTTPS_PROXY: "http://proxy:3128", AWS_SECRET_ACCESS_KEY: "s", HOME: "/root" },
    );
    expect(config.deploymentEnv).toEqual({ PATH: `${dirname(process.execPath)}:/bin`, TZ: "UTC", HTTPS_PROXY: "http://proxy:3128" });
  });

  it("runs deployments sandboxed unless GANTRY_SANDBOX=off, and accepts local repositories only under absolute roots", () => {
    const base = { GANTRY_SECRETS_KEY: KEY };
    expect(loadControlPlaneConfig({}, base)).toMatchObject({ sandbox: "bubblewrap", allowedRepoRoots: [], allowedRepoHosts: [] });
    expect(loadControlPlaneConfig({}, { ...base, GANTRY_SANDBOX: "off" }).sandbox).toBe("off");
    expect(() => loadControlPlaneConfig({}, { ...base, GANTRY_SANDBOX: "none" })).toThrow(/GANTRY_SANDBOX.*'bubblewrap' or 'off'/);
    const roots = loadControlPlaneConfig({}, { ...base, GANTRY_ALLOWED_REPO_ROOTS: "/srv/repos/, /home/ci", GANTRY_ALLOWED_REPO_HOSTS: "Git.Local,[fe80::1]" });
    expect(roots).toMatchObject({ allowedRepoRoots: ["/srv/repos", "/home/ci"], allowedRepoHosts: ["git.local", "fe80::1"] });
    expect(() => loadControlPlaneConfig({}, { ...base, GANTRY_ALLOWED_REPO_ROOTS: "repos" })).toThrow(/GANTRY_ALLOWED_REPO_ROOTS.*absolute/);
  });
});
