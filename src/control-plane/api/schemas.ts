// Wire schemas of the control-plane API (spec §3-§4): request bodies and queries, checked with zod
// at the edge. Unknown body fields are accepted and ignored, as the platform's FastAPI models do.
import { z } from "zod";
import { parseCustomUrl } from "../custom-url.js";
import { DEPLOYMENT_STATUSES, REVISION_STATUSES } from "../storage/records.js";

const queryInt = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`)
    .default(fallback);

const queryBoolean = z
  .string()
  .transform((s) => s.toLowerCase())
  .pipe(z.enum(["true", "false", "1", "0"], { error: "must be true or false" }))
  .transform((s) => s === "true" || s === "1");

export const SecretBody = z.object({
  name: z.string().min(1, "must not be empty"),
  value: z.string(),
});

const deploymentType = z.enum(["dev_free", "dev", "prod"]);

const SourceConfigBody = z.object({
  integration_id: z.uuid({ error: "must be a UUID" }).nullish(),
  repo_url: z.string().min(1, "must not be empty").nullish(),
  deployment_type: deploymentType.nullish(),
  build_on_push: z.boolean().nullish(),
  // "" clears it on PATCH.
  custom_url: z
    .string()
    .superRefine((text, ctx) => {
      const parsed = text === "" ? undefined : parseCustomUrl(text);
      if (parsed && "error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
    })
    .nullish(),
  resource_spec: z.record(z.string(), z.unknown()).nullish(),
  listener_id: z.uuid({ error: "must be a UUID" }).nullish(),
  listener_config: z.object({ k8s_namespace: z.string().nullish() }).nullish(),
  install_command: z.string().nullish(),
  build_command: z.string().nullish(),
});

const SourceRevisionConfigBody = z.object({
  repo_ref: z.string().min(1, "must not be empty").nullish(),
  langgraph_config_path: z
    .string()
    .min(1, "must not be empty")
    .refine((p) => !p.split(/[\\/]/).includes("..") && !p.startsWith("/"), "must be a path inside the repository")
    .nullish(),
  image_uri: z.string().nullish(),
  source_tarball_path: z.string().nullish(),
});

const source = z.enum(["github", "external_docker", "internal_docker", "internal_source", "internal_template"]);

export const DeploymentCreateBody = z.object({
  name: z
    .string()
    .min(1, "must not be empty")
    .max(63, "must be at most 63 characters")
    .regex(/^[A-Za-z][A-Za-z0-9-]*$/, "must start with a letter and hold only letters, digits and hyphens"),
  source,
  source_config: SourceConfigBody,
  source_revision_config: SourceRevisionConfigBody,
  secrets: z.array(SecretBody),
  secret_references: z.array(z.unknown()).nullish(),
});

export const DeploymentPatchBody = z.object({
  name: z.string().optional(),
  source: source.optional(),
  revision_source: z.enum(["github", "internal_docker", "internal_source"]).nullish(),
  source_config: SourceConfigBody.nullish(),
  source_revision_config: SourceRevisionConfigBody.nullish(),
  secrets: z.array(SecretBody).nullish(),
  secret_references: z.array(z.unknown()).nullish(),
  tracked_packages: z.array(z.string()).nullish(),
});

export const DeploymentListQuery = z.object({
  limit: queryInt(1, 100, 20),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
  name_contains: z.string().optional(),
  status: z.enum(DEPLOYMENT_STATUSES).optional(),
  remote_reconciled: queryBoolean.optional(),
  tag_value_ids: z.string().optional(),
  image_version: z.string().optional(),
  deployment_type: deploymentType.optional(),
  deployment_ids: z.array(z.uuid({ error: "must be a UUID" })).optional(),
});

export const RevisionListQuery = z.object({
  limit: queryInt(1, 100, 20),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
  status: z.array(z.enum(REVISION_STATUSES)).optional(),
  remote_reconciled: queryBoolean.optional(),
});

export const DeleteQuery = z.object({
  force: queryBoolean.optional(),
  delete_tracing_project: queryBoolean.optional(),
});

export const LogsQuery = z.object({
  type: z.enum(["build", "deploy"]),
  start_time: z.iso.datetime({ offset: true, error: "must be an ISO-8601 date-time" }).optional(),
  end_time: z.iso.datetime({ offset: true, error: "must be an ISO-8601 date-time" }).optional(),
  order: z.enum(["asc", "desc"]).default("asc"),
  limit: queryInt(1, 1000, 50),
  offset: z.string().optional(),
  query: z.string().optional(),
  level: z.enum(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]).optional(),
  run_id: z.string().optional(),
});

const SecretOut = z.object({ name: z.string(), value: z.string() });
const SourceRevisionConfigOut = z.object({
  repo_ref: z.string().nullable(),
  langgraph_config_path: z.string().nullable(),
  image_uri: z.string().nullable(),
  source_tarball_path: z.string().nullable(),
  repo_commit_sha: z.string().nullable(),
});

export const RevisionOut = z.object({
  id: z.uuid(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(REVISION_STATUSES),
  source: z.string(),
  source_revision_config: SourceRevisionConfigOut,
});

export const DeploymentOut = z.object({
  id: z.uuid(),
  tenant_id: z.uuid(),
  name: z.string(),
  source: z.string(),
  source_config: SourceConfigBody,
  source_revision_config: SourceRevisionConfigOut,
  secrets: z.array(SecretOut),
  secret_references: z.null(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(DEPLOYMENT_STATUSES),
  latest_revision_id: z.uuid().nullable(),
  active_revision_id: z.uuid().nullable(),
  image_version: z.string().nullable(),
});
