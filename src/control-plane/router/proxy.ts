// The router: /deployments/{id}/... goes to the live revision of the deployment, and so does every
// request whose Host is the deployment's custom_url host (at the root path). Bodies stream both
// ways without buffering (SSE arrives event by event). Each request holds a lease on the instance
// until its response body ends, so a replaced revision drains before it stops.
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { notFound } from "../../errors.js";
import { isUuid } from "../../ids.js";
import type { Driver, Lease } from "../drivers/driver.js";
import { hostCandidates } from "../custom-url.js";
import type { ControlPlaneStore } from "../storage/ports.js";
import type { DeploymentRecord } from "../storage/records.js";
import { clientResponseHeaders, upstreamRequestHeaders, type ClientView } from "./forward-headers.js";

export function deploymentRouter({ store, driver }: { store: ControlPlaneStore; driver: Driver }) {
  function toLiveRevision(c: Context, deployment: DeploymentRecord, prefix: string): Promise<Response> | Response {
    const lease = deployment.active_revision_id ? driver.acquire(deployment.active_revision_id) : undefined;
    if (!lease) {
      // 503: the SDKs retry it, which is right while a first revision is still building.
      c.header("Retry-After", "1");
      return c.json({ detail: `Deployment ID ${deployment.id} has no live revision yet; see its revisions for progress.` }, 503);
    }
    return forward(c, deployment.id, lease, prefix);
  }

  return {
    /** /deployments/{deployment_id}/...; `tenant`: the one the request acts in, if any (routes.ts tenantOf). */
    async byPath(c: Context, tenant: string | undefined): Promise<Response> {
      const id = c.req.param("deployment_id") ?? "";
      if (!isUuid(id)) throw notFound(`Deployment ID ${id} not found.`);
      const deployment = await store.getDeployment(id.toLowerCase());
      if (!deployment || deployment.status === "AWAITING_DELETE" || (tenant !== undefined && deployment.tenant_id !== tenant)) {
        throw notFound(`Deployment ID ${id} not found.`);
      }
      // The id as the client wrote it: that is the prefix its path starts with.
      return toLiveRevision(c, deployment, `/deployments/${id}`);
    },
    /** The deployment whose custom host the request's Host header names, if any. */
    forHost(hostHeader: string | undefined): Promise<DeploymentRecord | undefined> {
      return store.findByCustomHost(hostCandidates(hostHeader ?? ""));
    },
    /** Every path of a request to a deployment's custom host, as is. */
    byHost(c: Context, deployment: DeploymentRecord, tenant: string | undefined): Promise<Response> | Response {
      if (tenant !== undefined && deployment.tenant_id !== tenant) throw notFound(`No deployment of tenant ${tenant} is served at this host.`);
      return toLiveRevision(c, deployment, "");
    },
  };
}

/** `prefix`: the part of the incoming path that names the deployment ("" on its custom host). */
async function forward(c: Context, deploymentId: string, lease: Lease, prefix: string): Promise<Response> {
  const incoming = new URL(c.req.url);
  const path = (prefix ? incoming.pathname.slice(incoming.pathname.indexOf(prefix) + prefix.length) : incoming.pathname) || "/";
  const headers = upstreamRequestHeaders(c.req.raw.headers, clientOf(c, incoming));
  // The revision's token: the server answers nothing without it (server/revision-token.ts).
  for (const [name, value] of Object.entries(lease.headers)) headers.set(name, value);
  const hasBody = c.req.method !== "GET" && c.req.method !== "HEAD";
  let upstream: Response;
  try {
    upstream = await fetch(lease.url + path + incoming.search, {
      method: c.req.method,
      headers,
      ...(hasBody ? { body: c.req.raw.body, duplex: "half" } : {}),
      signal: c.req.raw.signal,
      redirect: "manual",
    } as RequestInit);
  } catch (err) {
    lease.release();
    if (c.req.raw.signal.aborted) return new Response(null, { status: 499 });
    // 502, not a GantryError kind: the SDKs retry it, and the next attempt may reach a new revision.
    return c.json({ detail: `Deployment ID ${deploymentId} did not answer: ${(err as Error).message}` }, 502);
  }
  const responseHeaders = clientResponseHeaders(upstream, c.req.method);
  // Locations the server gives are relative to its root; the client reaches it under the prefix.
  for (const name of ["location", "content-location"]) {
    const value = responseHeaders.get(name);
    if (value?.startsWith("/")) responseHeaders.set(name, prefix + value);
  }
  if (!upstream.body) {
    lease.release();
    return new Response(null, { status: upstream.status, headers: responseHeaders });
  }
  const reader = upstream.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          lease.release();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (err) {
        lease.release();
        controller.error(err);
      }
    },
    cancel(reason) {
      lease.release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: upstream.status, headers: responseHeaders });
}

function clientOf(c: Context, incoming: URL): ClientView {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // Not on a Node socket (app.request() in a test): there is no peer to name.
  }
  return { address, proto: incoming.protocol.replace(/:$/, ""), host: c.req.header("host") };
}
