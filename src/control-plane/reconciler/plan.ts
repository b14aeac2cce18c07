// The reconciler's decisions, as a pure function: one deployment as recorded (desired) and what
// runs (observed) -> the actions that move the second toward the first. No I/O here; loop.ts runs
// the actions, and every action is safe to repeat, so a crash between two of them is repaired by
// planning again.
import type { InstanceState } from "../drivers/driver.js";
import { TERMINAL_STATUSES, type DeploymentStatus, type RevisionStatus } from "../storage/records.js";

export interface DesiredRevision {
  id: string;
  status: RevisionStatus;
  /** Its build is in the build cache (the commit is resolved and installed and its graphs import). */
  built: boolean;
}

export interface DesiredDeployment {
  id: string;
  status: DeploymentStatus;
  active_revision_id: string | null;
  /** Newest first. Only revisions not yet terminal and the active one matter to the plan. */
  revisions: DesiredRevision[];
}

export interface ObservedInstance {
  deployment_id: string;
  revision_id: string;
  state: InstanceState;
}

export type Action =
  | { type: "set_status"; revision_id: string; status: RevisionStatus; from: readonly RevisionStatus[] }
  | { type: "build"; revision_id: string }
  | { type: "start"; revision_id: string }
  | { type: "promote"; revision_id: string }
  | { type: "stop"; revision_id: string }
  | { type: "purge"; deployment_id: string };

const PENDING_BUILD: readonly RevisionStatus[] = ["AWAITING_BUILD", "BUILDING"];

/** Actions for one deployment. `instances` are this deployment's running (or failed) servers. */
export function plan(deployment: DesiredDeployment, instances: ObservedInstance[]): Action[] {
  const live = instances.filter((i) => i.state !== "stopping");
  if (deployment.status === "AWAITING_DELETE") {
    // Everything stops first; the records go only when nothing of the deployment runs any more.
    if (instances.length > 0) return live.map((i) => ({ type: "stop", revision_id: i.revision_id }));
    return [{ type: "purge", deployment_id: deployment.id }];
  }

  const actions: Action[] = [];
  const pending = deployment.revisions.filter((r) => !TERMINAL_STATUSES.has(r.status));
  const target = pending[0];
  // Only the newest queued revision is worth building; the ones it overtook are skipped (spec §6.1).
  for (const older of pending.slice(1)) {
    actions.push({ type: "set_status", revision_id: older.id, status: "SKIPPED", from: [older.status] });
  }

  if (target)
    actions.push(
      ...advance(
        target,
        live.find((i) => i.revision_id === target.id),
      ),
    );

  const active = deployment.active_revision_id;
  if (active && active !== target?.id) {
    const instance = live.find((i) => i.revision_id === active);
    // The live revision must be running: after a restart of the control plane, or after it crashed.
    if (!instance) actions.push({ type: "start", revision_id: active });
    else if (instance.state === "failed") actions.push({ type: "stop", revision_id: active }, { type: "start", revision_id: active });
  }

  // A server that is neither live nor being rolled out is drained and stopped.
  for (const instance of live) {
    if (instance.revision_id === active || instance.revision_id === target?.id) continue;
    actions.push({ type: "stop", revision_id: instance.revision_id });
  }
  return actions;
}

function advance(target: DesiredRevision, instance: ObservedInstance | undefined): Action[] {
  const id = target.id;
  switch (target.status) {
    case "CREATING":
    case "QUEUED":
      return [{ type: "set_status", revision_id: id, status: "AWAITING_BUILD", from: [target.status] }];
    case "AWAITING_BUILD":
    case "BUILDING":
      // A build that finished before a crash is not repeated: its result is in the cache.
      return target.built ? [{ type: "set_status", revision_id: id, status: "AWAITING_DEPLOY", from: PENDING_BUILD }] : [{ type: "build", revision_id: id }];
    case "AWAITING_DEPLOY":
      return [
        { type: "set_status", revision_id: id, status: "DEPLOYING", from: ["AWAITING_DEPLOY"] },
        { type: "start", revision_id: id },
      ];
    case "DEPLOYING":
      if (!instance) return [{ type: "start", revision_id: id }];
      if (instance.state === "healthy") return [{ type: "promote", revision_id: id }];
      if (instance.state === "failed") {
        return [
          { type: "set_status", revision_id: id, status: "DEPLOY_FAILED", from: ["DEPLOYING"] },
          { type: "stop", revision_id: id },
        ];
      }
      return [];
    default:
      return [];
  }
}
