import { describe, expect, it } from "vitest";
import { plan, type DesiredDeployment, type DesiredRevision, type ObservedInstance } from "./plan.js";

const rev = (id: string, status: DesiredRevision["status"], built = false): DesiredRevision => ({ id, status, built });
const deployment = (revisions: DesiredRevision[], active: string | null = null, status: DesiredDeployment["status"] = "READY"): DesiredDeployment => ({
  id: "d",
  status,
  active_revision_id: active,
  revisions,
});
const instance = (revision_id: string, state: ObservedInstance["state"]): ObservedInstance => ({ deployment_id: "d", revision_id, state });

describe("plan", () => {
  it("moves a queued revision to AWAITING_BUILD, then builds it", () => {
    expect(plan(deployment([rev("r1", "QUEUED")]), [])).toEqual([{ type: "set_status", revision_id: "r1", status: "AWAITING_BUILD", from: ["QUEUED"] }]);
    expect(plan(deployment([rev("r1", "AWAITING_BUILD")]), [])).toEqual([{ type: "build", revision_id: "r1" }]);
  });

  it("builds again a revision left BUILDING by a crash, unless its build is already cached", () => {
    expect(plan(deployment([rev("r1", "BUILDING")]), [])).toEqual([{ type: "build", revision_id: "r1" }]);
    expect(plan(deployment([rev("r1", "BUILDING", true)]), [])).toEqual([
      { type: "set_status", revision_id: "r1", status: "AWAITING_DEPLOY", from: ["AWAITING_BUILD", "BUILDING"] },
    ]);
  });

  it("starts a built revision and promotes it only once healthy", () => {
    expect(plan(deployment([rev("r1", "AWAITING_DEPLOY", true)]), [])).toEqual([
      { type: "set_status", revision_id: "r1", status: "DEPLOYING", from: ["AWAITING_DEPLOY"] },
      { type: "start", revision_id: "r1" },
    ]);
    expect(plan(deployment([rev("r1", "DEPLOYING", true)]), [instance("r1", "starting")])).toEqual([]);
    expect(plan(deployment([rev("r1", "DEPLOYING", true)]), [instance("r1", "healthy")])).toEqual([{ type: "promote", revision_id: "r1" }]);
  });

  it("starts a DEPLOYING revision again when its server is gone (control plane restarted)", () => {
    expect(plan(deployment([rev("r1", "DEPLOYING", true)]), [])).toEqual([{ type: "start", revision_id: "r1" }]);
  });

  it("fails a revision whose server is unhealthy and keeps the live one", () => {
    const d = deployment([rev("r2", "DEPLOYING", true), rev("r1", "DEPLOYED", true)], "r1");
    expect(plan(d, [instance("r1", "healthy"), instance("r2", "failed")])).toEqual([
      { type: "set_status", revision_id: "r2", status: "DEPLOY_FAILED", from: ["DEPLOYING"] },
      { type: "stop", revision_id: "r2" },
    ]);
  });

  it("stops the replaced revision after a rollout, and restarts the live one when it is missing", () => {
    const d = deployment([rev("r2", "DEPLOYED", true), rev("r1", "DEPLOYED", true)], "r2");
    expect(plan(d, [instance("r1", "healthy"), instance("r2", "healthy")])).toEqual([{ type: "stop", revision_id: "r1" }]);
    expect(plan(d, [])).toEqual([{ type: "start", revision_id: "r2" }]);
    expect(plan(d, [instance("r2", "failed")])).toEqual([
      { type: "stop", revision_id: "r2" },
      { type: "start", revision_id: "r2" },
    ]);
  });

  it("skips revisions overtaken by a newer one and works on the newest", () => {
    const d = deployment([rev("r3", "QUEUED"), rev("r2", "AWAITING_BUILD")]);
    expect(plan(d, [])).toEqual([
      { type: "set_status", revision_id: "r2", status: "SKIPPED", from: ["AWAITING_BUILD"] },
      { type: "set_status", revision_id: "r3", status: "AWAITING_BUILD", from: ["QUEUED"] },
    ]);
  });

  it("stops everything of a deleted deployment before purging it", () => {
    const d = deployment([rev("r1", "DEPLOYED", true)], "r1", "AWAITING_DELETE");
    expect(plan(d, [instance("r1", "healthy")])).toEqual([{ type: "stop", revision_id: "r1" }]);
    expect(plan(d, [instance("r1", "stopping")])).toEqual([]);
    expect(plan(d, [])).toEqual([{ type: "purge", deployment_id: "d" }]);
  });

  it("does nothing when what runs matches what is recorded", () => {
    expect(plan(deployment([rev("r1", "DEPLOYED", true)], "r1"), [instance("r1", "healthy")])).toEqual([]);
    expect(plan(deployment([rev("r1", "BUILD_FAILED")]), [])).toEqual([]);
  });
});
