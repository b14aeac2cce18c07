import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadProjectConfig } from "./langgraph-config.js";
import { loadWebhookConfig, resolveHeaderTemplates } from "./webhook-config.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-webhook-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(content: unknown) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ graphs: { a: "./a.ts:g" }, ...(content as object) }));
  return loadProjectConfig(path);
}

describe("webhook config", () => {
  it("reads the policy, headers and delivery settings, with defaults", () => {
    const config = loadWebhookConfig(project({ webhooks: { headers: { "X-Env": "${{ env.LG_WEBHOOK_KEY }}" }, url: { require_https: true } } }), {
      LG_WEBHOOK_KEY: "k1",
      GANTRY_WEBHOOK_MAX_ATTEMPTS: "3",
    });
    expect(config).toMatchObject({
      enabled: true,
      policy: { require_https: true, disable_loopback: true, allow_private_networks: false },
      headers: { "X-Env": "k1" },
      maxAttempts: 3,
      timeoutMs: 10_000,
    });
    expect(config.signingSecret).toBeUndefined();
  });

  it("is off with http.disable_webhooks", () => {
    expect(loadWebhookConfig(project({ http: { disable_webhooks: true } }), {}).enabled).toBe(false);
  });

  it("takes the whole block from LANGGRAPH_WEBHOOKS when set, and names what is wrong in it", () => {
    const config = loadWebhookConfig(project({ webhooks: { url: { require_https: true } } }), { LANGGRAPH_WEBHOOKS: '{"url":{"disable_loopback":false}}' });
    expect(config.policy).toMatchObject({ disable_loopback: false });
    expect(config.policy.require_https).toBeUndefined();
    expect(() => loadWebhookConfig(project({}), { LANGGRAPH_WEBHOOKS: '{"url":{"allowed_ports":["x"]}}' })).toThrow(
      /LANGGRAPH_WEBHOOKS is invalid at 'url.allowed_ports.0'/,
    );
    expect(() => loadWebhookConfig(project({}), { LANGGRAPH_WEBHOOKS: "{" })).toThrow(/not valid JSON/);
  });

  it("refuses a bad delivery setting naming the variable", () => {
    expect(() => loadWebhookConfig(project({}), { GANTRY_WEBHOOK_TIMEOUT_MS: "soon" })).toThrow(/GANTRY_WEBHOOK_TIMEOUT_MS is invalid/);
  });

  it("ignores an unknown key under webhooks.url, naming it for the start-up warning, and keeps the policy", () => {
    const config = project({ webhooks: { url: { allow_everything: true, require_https: true } } });
    expect(config.ignoredKeys.unknown).toEqual(["webhooks.url.allow_everything"]);
    expect(loadWebhookConfig(config, {}).policy).toEqual(expect.objectContaining({ require_https: true }));
    expect(loadWebhookConfig(config, {}).policy).not.toHaveProperty("allow_everything");
  });
});

describe("resolveHeaderTemplates", () => {
  it("fills ${{ env.NAME }} from variables with the prefix", () => {
    expect(resolveHeaderTemplates({ Authorization: "Bearer ${{env.LG_WEBHOOK_T}}", Plain: "x" }, { LG_WEBHOOK_T: "abc" }, "LG_WEBHOOK_")).toEqual({
      Authorization: "Bearer abc",
      Plain: "x",
    });
  });

  it("stops start-up when a variable is missing or lacks the prefix", () => {
    expect(() => resolveHeaderTemplates({ A: "${{ env.LG_WEBHOOK_MISSING }}" }, {}, "LG_WEBHOOK_")).toThrow(/LG_WEBHOOK_MISSING, which is not set/);
    expect(() => resolveHeaderTemplates({ A: "${{ env.DATABASE_URL }}" }, { DATABASE_URL: "secret" }, "LG_WEBHOOK_")).toThrow(
      /only variables starting with 'LG_WEBHOOK_'/,
    );
  });
});
