// Wire schemas of the control-plane API (spec §3-§4): request bodies and queries, checked with zod
// at the edge. Unknown body fields are accepted and ignored, as the platform's FastAPI models do.
import { z } from "zod";
import { parseCustomUrl } from "../custom-url.js";
import { DEPLOYMENT_STATUSES, REVISION_STATUSES } from "../storage/records.js";
import { LIMITS, jsonProblem, line, repoRef, repoUrl, secretName, text } from "./limits.js";

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
  name: secretName,
  value: text(LIMITS.secretValue),
});

const secretList = z.array(SecretBody).max(LIMITS.secrets, `must hold at most ${LIMITS.secrets} secrets`);
/** Only external_docker deployments have them, which Gantry refuses; the bound keeps the refusal cheap. */
const secretReferences = z
  .array(z.unknown())
  .max(LIMITS.list, `must hold at most ${LIMITS.list} entries`)
  .superRefine((refs, ctx) => {
    const problem = jsonProblem(refs, LIMITS.jsonDepth);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

// Its keys are checked with its values, so a refusal names resource_spec itself.
const resourceSpec = z.record(z.string(), z.unknown()).superRefine((spec, ctx) => {
  const problem = jsonProblem(spec, LIMITS.jsonDepth);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
  else if (JSON.stringify(spec).length > LIMITS.resourceSpecBytes)
    ctx.addIssue({ code: "custom", message: `must be at most ${LIMITS.resourceSpecBytes} characters as JSON` });
});

const deploymentType = z.enum(["dev_free", "dev", "prod"]);

const SourceConfigBody = z.object({
  integration_id: z.uuid({ error: "must be a UUID" }).nullish(),
  repo_url: repoUrl.nullish(),
  deployment_type: deploymentType.nullish(),
  build_on_push: z.boolean().nullish(),
  // "" clears it on PATCH.
  custom_url: line(LIMITS.url)
    .superRefine((text, ctx) => {
      const parsed = text === "" ? undefined : parseCustomUrl(text);
      if (parsed && "error" in parsed) ctx.addIssue({ code: "custom", message: parsed.error });
    })
    .nullish(),
  resource_spec: resourceSpec.nullish(),
  listener_id: z.uuid({ error: "must be a UUID" }).nullish(),
  listener_config: z.object({ k8s_namespace: line(LIMITS.short).nullish() }).nullish(),
  install_command: text(LIMITS.command).nullish(),
  build_command: text(LIMITS.command).nullish(),
});

const SourceRevisionConfigBody = z.object({
  repo_ref: repoRef.nullish(),
  langgraph_config_path: line(LIMITS.path)
    .min(1, "must not be empty")
    .refine((p) => !p.split(/[\\/]/).includes("..") && !p.startsWith("/"), "must be a path inside the repository")
    .nullish(),
  image_uri: line(LIMITS.url).nullish(),
  source_tarball_path: line(LIMITS.path).nullish(),
});

const source = z.enum(["github", "external_docker", "internal_docker", "internal_source", "internal_template"]);

const deploymentName = line(63)
  .min(1, "must not be empty")
  .regex(/^[A-Za-z][A-Za-z0-9-]*$/, "must start with a letter and hold only letters, digits and hyphens");

export const DeploymentCreateBody = z.object({
  name: deploymentName,
  source,
  source_config: SourceConfigBody,
  source_revision_config: SourceRevisionConfigBody,
  secrets: secretList,
  secret_references: secretReferences.nullish(),
});

export const DeploymentPatchBody = z.object({
  name: line(63).optional(),
  source: source.optional(),
  revision_source: z.enum(["github", "internal_docker", "internal_source"]).nullish(),
  source_config: SourceConfigBody.nullish(),
  source_revision_config: SourceRevisionConfigBody.nullish(),
  secrets: secretList.nullish(),
  secret_references: secretReferences.nullish(),
  tracked_packages: z.array(line(LIMITS.short)).max(LIMITS.list, `must hold at most ${LIMITS.list} entries`).nullish(),
});

export const DeploymentListQuery = z.object({
  limit: queryInt(1, 100, 20),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
  name_contains: line(LIMITS.short).optional(),
  status: z.enum(DEPLOYMENT_STATUSES).optional(),
  remote_reconciled: queryBoolean.optional(),
  tag_value_ids: line(LIMITS.short).optional(),
  image_version: line(LIMITS.short).optional(),
  deployment_type: deploymentType.optional(),
  deployment_ids: z
    .array(z.uuid({ error: "must be a UUID" }))
    .max(LIMITS.list, `must hold at most ${LIMITS.list} ids`)
    .optional(),
});

export const RevisionListQuery = z.object({
  limit: queryInt(1, 100, 20),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
  status: z.array(z.enum(REVISION_STATUSES)).max(LIMITS.list, `must hold at most ${LIMITS.list} statuses`).optional(),
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
  // A cursor is a log line's id: a whole number a BIGINT column holds exactly.
  offset: z
    .string()
    .regex(/^\d{1,16}$/, "must be a cursor this server returned in next_offset")
    .refine((s) => Number(s) <= Number.MAX_SAFE_INTEGER, "must be a cursor this server returned in next_offset")
    .optional(),
  query: line(LIMITS.short).optional(),
  level: z.enum(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]).optional(),
  run_id: line(LIMITS.short).optional(),
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
