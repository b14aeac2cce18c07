// Builder.prune on real directories: the keep set always stays, the builds used last fill the room
// left under the bound, the rest go; another deployment's builds are never touched.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { Builder } from "../../src/control-plane/builder/builder.js";
import { TEST_REPO_POLICY, unconfined } from "./support.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A finished build of `sha` for the deployment, last used `ageS` seconds ago. */
function fakeBuild(builder: Builder, deploymentId: string, sha: string, ageS: number): string {
  const dir = builder.dirFor(sha, { deployment_id: deploymentId, install_command: null, build_command: null });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".gantry-built"), "");
  const at = new Date(Date.now() - ageS * 1000);
  utimesSync(join(dir, ".gantry-built"), at, at);
  return dir;
}

it("keeps the builds in use and the newest others up to the bound", async () => {
  const root = mkdtempSync(join(tmpdir(), "gantry-builds-"));
  roots.push(root);
  const builder = new Builder({
    buildsDir: root,
    stepTimeoutMs: 1_000,
    gitIdleMs: 1_000,
    gitEnv: {},
    sandbox: await unconfined(root),
    repoPolicy: TEST_REPO_POLICY,
  });
  const live = fakeBuild(builder, "dep-a", "a1", 500);
  fakeBuild(builder, "dep-a", "a2", 400);
  fakeBuild(builder, "dep-a", "a3", 10);
  fakeBuild(builder, "dep-a", "a4", 300);
  const previous = fakeBuild(builder, "dep-a", "a5", 600);
  fakeBuild(builder, "dep-b", "b1", 900);

  const removed = await builder.prune("dep-a", new Set([live, previous]), 3);
  expect(removed.map((d) => d.split("/").at(-1)).sort()).toEqual(["a2", "a4"]);
  expect(readdirSync(join(root, "dep-a")).sort()).toEqual(["a1", "a3", "a5"]);
  expect(readdirSync(join(root, "dep-b"))).toEqual(["b1"]);

  await builder.removeDeployment("dep-a");
  expect(readdirSync(root)).toEqual(["dep-b"]);
});

it("keeps everything in use even past the bound", async () => {
  const root = mkdtempSync(join(tmpdir(), "gantry-builds-"));
  roots.push(root);
  const builder = new Builder({
    buildsDir: root,
    stepTimeoutMs: 1_000,
    gitIdleMs: 1_000,
    gitEnv: {},
    sandbox: await unconfined(root),
    repoPolicy: TEST_REPO_POLICY,
  });
  const kept = new Set(["c1", "c2", "c3"].map((sha, i) => fakeBuild(builder, "dep-c", sha, i)));
  fakeBuild(builder, "dep-c", "c4", 0);
  expect(await builder.prune("dep-c", kept, 2)).toHaveLength(1);
  expect(readdirSync(join(root, "dep-c")).sort()).toEqual(["c1", "c2", "c3"]);
});
