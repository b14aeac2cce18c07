// /v2/deployments and its revisions (spec §3): parse, call the deployment service, shape the answer.
import type { Context } from "hono";
import { GantryError, ValidationFailure } from "../../errors.js";
import { isUuid } from "../../ids.js";
import { route, type RouteSpec } from "../../server/route.js";
import { hostCandidates } from "../custom-url.js";
import type { DeploymentService, Tenant } from "../deployments.js";
import type { SourceUploads } from "../uploads/source-uploads.js";
import { DeleteQuery, DeploymentCreateBody, DeploymentListQuery, DeploymentPatchBody, LogsQuery, RevisionListQuery } from "./schemas.js";
import { deploymentWire, logWire, revisionWire } from "./wire.js";

const TAG = "Deployments (v2)";

function pathUuid(c: Context, name: string): string {
  const value = c.req.param(name) ?? "";
  if (!isUuid(value)) throw new ValidationFailure([{ loc: ["path", name], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  return value.toLowerCase();
}

/** Where checkApiKey (app.ts) leaves the tenant a key is bound to. */
export const KEY_TENANT = "apiKeyTenant";

/**
 * X-Tenant-Id scopes a request to one tenant; without it a key acts across all of them, unless the
 * key is bound to a tenant: then it acts in that one only, with or without the header.
 */
export function tenantOf(c: Context): Tenant {
  const bound = c.get(KEY_TENANT) as string | undefined;
  const value = c.req.header("x-tenant-id");
  if (value === undefined || value === "") return bound;
  if (!isUuid(value)) throw new ValidationFailure([{ loc: ["header", "X-Tenant-Id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  if (bound !== undefined && value.toLowerCase() !== bound) {
    throw new GantryError("forbidden", `This API key acts only in tenant ${bound}; X-Tenant-Id names another.`);
  }
  return value.toLowerCase();
}

export interface RouteDeps {
  deployments: DeploymentService;
  baseUrl: (c: Context) => string;
  /** Asks the remote for the ref's commit now; true when that made a revision. */
  checkPush: (deploymentId: string) => Promise<boolean>;
  uploads: Pick<SourceUploads, "issue">;
  /** Names and addresses the control plane is known by besides the request's: its listen address, its host name, its interfaces'. */
  ownHostNames: readonly string[];
}

export function deploymentRoutes({ deployments, baseUrl, checkPush, uploads, ownHostNames }: RouteDeps): RouteSpec[] {
  const one = (c: Context) => pathUuid(c, "deployment_id");
  // The hosts this API is reached at: a deployment taking one of them would hide the API.
  const ownHosts = (c: Context) => [new URL(baseUrl(c)).host, ...hostCandidates(c.req.header("host") ?? ""), ...ownHostNames];
  return [
    route({
      method: "get",
      path: "/v2/deployments",
      tag: TAG,
      summary: "List deployments",
      query: DeploymentListQuery,
      listQuery: ["deployment_ids"],
      responses: { 200: "A page of deployments and the offset of the next page", 422: "Invalid query" },
      handler: async (c, { query }) => {
        const views = await deployments.list(
          {
            limit: query.limit,
            offset: query.offset,
            matchesNothing: Boolean(query.tag_value_ids || query.image_version),
            ...(query.name_contains !== undefined ? { name_contains: query.name_contains } : {}),
            ...(query.status !== undefined ? { status: query.status } : {}),
            ...(query.deployment_type !== undefined ? { deployment_type: query.deployment_type } : {}),
            ...(query.deployment_ids !== undefined ? { deployment_ids: query.deployment_ids.map((s) => s.toLowerCase()) } : {}),
            ...(query.remote_reconciled !== undefined ? { remote_reconciled: query.remote_reconciled } : {}),
          },
          tenantOf(c),
        );
        return c.json({ resources: views.map((v) => deploymentWire(v, baseUrl(c))), offset: query.offset + views.length });
      },
    }),
    route({
      method: "post",
      path: "/v2/deployments",
      tag: TAG,
      summary: "Create a deployment and its first revision",
      body: DeploymentCreateBody,
      responses: { 201: "The deployment, with latest_revision_id", 400: "Source configuration error", 409: "Name taken", 422: "Invalid body" },
      handler: async (c, { body }) => c.json(deploymentWire(await deployments.create(body, tenantOf(c), ownHosts(c)), baseUrl(c)), 201),
    }),
    route({
      method: "get",
      path: "/v2/deployments/:deployment_id",
      tag: TAG,
      summary: "Get a deployment",
      responses: { 200: "The deployment", 404: "Unknown deployment", 422: "Invalid id" },
      handler: async (c) => c.json(deploymentWire(await deployments.get(one(c), tenantOf(c)), baseUrl(c))),
    }),
    route({
      method: "patch",
      path: "/v2/deployments/:deployment_id",
      tag: TAG,
      summary: "Update a deployment; a new ref, config path, secrets or resource spec creates a revision",
      body: DeploymentPatchBody,
      responses: { 200: "The deployment", 400: "Immutable field or source error", 404: "Unknown deployment", 422: "Invalid body" },
      handler: async (c, { body }) => c.json(deploymentWire(await deployments.patch(one(c), body, tenantOf(c), ownHosts(c)), baseUrl(c))),
    }),
    route({
      method: "delete",
      path: "/v2/deployments/:deployment_id",
      tag: TAG,
      summary: "Delete a deployment: its server is stopped and its data removed",
      query: DeleteQuery,
      responses: { 204: "Deleting", 400: "force on a deployment not awaiting delete", 404: "Unknown deployment", 422: "Invalid id" },
      handler: async (c, { query }) => {
        await deployments.delete(one(c), tenantOf(c), query.force ?? false);
        return c.body(null, 204);
      },
    }),
    route({
      method: "post",
      path: "/v2/deployments/:deployment_id/push-webhook",
      tag: TAG,
      summary: "Check a build_on_push deployment's ref now (call it from a git push hook or CI) instead of waiting for the next poll",
      bodyOptional: true,
      responses: { 200: "The deployment; latest_revision_id is new when the ref moved", 400: "build_on_push is off", 404: "Unknown deployment" },
      handler: async (c) => {
        const id = one(c);
        const tenant = tenantOf(c);
        const { deployment } = await deployments.get(id, tenant);
        if (!deployment.build_on_push)
          throw new GantryError("malformed", `Deployment ID ${id} has build_on_push off; PATCH source_config.build_on_push to true first.`);
        await checkPush(id);
        return c.json(deploymentWire(await deployments.get(id, tenant), baseUrl(c)));
      },
    }),
    route({
      method: "post",
      path: "/v2/deployments/:deployment_id/upload-url",
      tag: TAG,
      summary:
        "A URL on this control plane to PUT the source archive (.tar.gz) of an internal_source deployment to: signed, single-use, valid 15 minutes, up to 200 MiB; its object_path goes in source_revision_config.source_tarball_path",
      responses: { 200: "upload_url and object_path", 400: "Not an internal_source deployment", 404: "Unknown deployment", 409: "Deployment being deleted" },
      handler: async (c) => {
        const id = one(c);
        await deployments.acceptsUpload(id, tenantOf(c));
        return c.json(uploads.issue(id, baseUrl(c)));
      },
    }),
    route({
      method: "post",
      path: "/v2/deployments/:deployment_id/push-token",
      tag: TAG,
      summary: "Registry credentials for internal_docker images: Gantry has no registry, so this always answers 400 naming --remote instead",
      responses: { 400: "No registry: deploy with --remote (internal_source)", 404: "Unknown deployment" },
      handler: async (c) => deployments.pushToken(one(c), tenantOf(c)),
    }),
    route({
      method: "get",
      path: "/v2/deployments/:deployment_id/revisions",
      tag: TAG,
      summary: "List a deployment's revisions, newest first",
      query: RevisionListQuery,
      listQuery: ["status"],
      responses: { 200: "A page of revisions", 404: "Unknown deployment", 422: "Invalid query" },
      handler: async (c, { query }) => {
        const revisions = await deployments.listRevisions(one(c), tenantOf(c), query.status, query.limit, query.offset);
        return c.json({ resources: revisions.map(revisionWire), offset: query.offset + revisions.length });
      },
    }),
    route({
      method: "post",
      path: "/v2/deployments/:deployment_id/revisions",
      tag: TAG,
      summary: "Create a revision (the PATCH fields; a revision is made even when none changes)",
      body: DeploymentPatchBody,
      bodyOptional: true,
      responses: { 201: "The new revision", 400: "Immutable field or source error", 404: "Unknown deployment", 422: "Invalid body" },
      handler: async (c, { body }) => c.json(revisionWire(await deployments.createRevision(one(c), body, tenantOf(c), ownHosts(c))), 201),
    }),
    route({
      method: "get",
      path: "/v2/deployments/:deployment_id/revisions/:revision_id",
      tag: TAG,
      summary: "Get a revision",
      responses: { 200: "The revision", 404: "Unknown deployment or revision", 422: "Invalid id" },
      handler: async (c) => c.json(revisionWire(await deployments.getRevision(one(c), pathUuid(c, "revision_id"), tenantOf(c)))),
    }),
    route({
      method: "post",
      path: "/v2/deployments/:deployment_id/revisions/:revision_id/redeploy",
      tag: TAG,
      summary: "Deploy a revision again as a new revision (same commit, config and secrets): rollback",
      responses: { 200: "The deployment", 404: "Unknown deployment or revision", 409: "Deployment being deleted", 422: "Invalid id" },
      handler: async (c) => c.json(deploymentWire(await deployments.redeploy(one(c), pathUuid(c, "revision_id"), tenantOf(c)), baseUrl(c))),
    }),
    route({
      method: "get",
      path: "/v2/deployments/:deployment_id/revisions/:revision_id/logs",
      tag: TAG,
      summary: "Build or deploy logs of a revision, paged by an opaque cursor",
      query: LogsQuery,
      responses: { 200: "Log entries and next_offset", 404: "Unknown deployment or revision", 422: "Invalid query" },
      handler: async (c, { query }) => {
        const page = await deployments.logs(one(c), pathUuid(c, "revision_id"), tenantOf(c), {
          type: query.type,
          order: query.order,
          limit: query.limit,
          ...(query.offset !== undefined ? { offset: query.offset } : {}),
          ...(query.level !== undefined ? { level: query.level } : {}),
          ...(query.query !== undefined ? { query: query.query } : {}),
          ...(query.start_time !== undefined ? { start_time: query.start_time } : {}),
          ...(query.end_time !== undefined ? { end_time: query.end_time } : {}),
        });
        return c.json({ logs: page.logs.map(logWire), next_offset: page.next_offset });
      },
    }),
  ];
}
