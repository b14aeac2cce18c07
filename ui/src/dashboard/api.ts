// The dashboard's one way to the control plane: fetch on the public /v2 API of the origin that served
// the page, with the API key the user entered. The key is kept as the tab's auth header (../api.ts),
// so a deployment's thread/run view opened from here sends it too.
import { loadAuthHeader, saveAuthHeader } from "../api.js";

export const KEY_HEADER = "X-Api-Key";

export interface Secret {
  name: string;
  value: string;
}

export interface RevisionConfig {
  repo_ref: string | null;
  langgraph_config_path: string | null;
  repo_commit_sha: string | null;
}

export interface Deployment {
  id: string;
  name: string;
  status: string;
  source_config: { repo_url: string | null; deployment_type: string | null; build_on_push: boolean | null; custom_url: string | null };
  source_revision_config: RevisionConfig;
  secrets: Secret[];
  created_at: string;
  updated_at: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
}

export interface Revision {
  id: string;
  created_at: string;
  updated_at: string;
  status: string;
  source_revision_config: RevisionConfig;
}

export interface LogLine {
  id: string;
  timestamp: string;
  level: string;
  message: string;
}

/** Statuses after which a revision changes no more. */
export const SETTLED = ["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "SKIPPED", "INTERRUPTED"];

/** A failed call, shaped like the SDK's errors so `errorText` shows its `detail`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(`HTTP ${status}`);
  }
}

export function loadKey(): string | undefined {
  const header = loadAuthHeader();
  return header?.name.toLowerCase() === KEY_HEADER.toLowerCase() ? header.value : undefined;
}

export function saveKey(key: string | undefined): void {
  saveAuthHeader(key ? { name: KEY_HEADER, value: key } : undefined);
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const key = loadKey();
  const response = await fetch(path, {
    method,
    headers: { ...(key ? { [KEY_HEADER]: key } : {}), ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, text);
  return (text ? JSON.parse(text) : undefined) as T;
}

export const deploymentPath = (id: string) => `/v2/deployments/${encodeURIComponent(id)}`;

/** Every log line of a revision after `after` (a line id), following the cursor to the end. */
export async function logsAfter(deploymentId: string, revisionId: string, type: "build" | "deploy", after: string | undefined): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  let offset = after;
  for (;;) {
    const query = new URLSearchParams({ type, limit: "1000", ...(offset ? { offset } : {}) });
    const page = await call<{ logs: LogLine[]; next_offset: string | null }>(
      "GET",
      `${deploymentPath(deploymentId)}/revisions/${encodeURIComponent(revisionId)}/logs?${query}`,
    );
    lines.push(...page.logs);
    if (!page.next_offset) return lines;
    offset = page.next_offset;
  }
}
