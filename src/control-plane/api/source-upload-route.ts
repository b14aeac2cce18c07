// PUT /uploads/{deployment}/{upload}?expires&signature: where the official CLI sends the source
// archive (the upload_url of POST .../upload-url). The signature is the credential, as with the
// cloud storage URL the CLI was written for, so no API key is asked; the body streams to disk.
import type { IncomingMessage } from "node:http";
import type { Context, Hono } from "hono";
import { BODY_IDLE_TIMEOUT_MS } from "../../domain/limits.js";
import { GantryError } from "../../errors.js";
import type { AppEnv } from "../../server/app-env.js";
import { requestHeader } from "../../server/node-request.js";
import type { DeploymentService } from "../deployments.js";
import type { SourceUploads } from "../uploads/source-uploads.js";

export function mountSourceUploads(app: Hono<AppEnv>, deps: { uploads: Pick<SourceUploads, "authorize" | "receive">; deployments: DeploymentService }): void {
  app.put("/uploads/:deployment_id/:upload_id", async (c) => {
    c.set("routePattern", "/uploads/:deployment_id/:upload_id");
    const target = {
      deploymentId: (c.req.param("deployment_id") ?? "").toLowerCase(),
      uploadId: (c.req.param("upload_id") ?? "").toLowerCase(),
      expires: c.req.query("expires"),
      signature: c.req.query("signature"),
    };
    const header = requestHeader(c, "content-length");
    const length = header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
    // The signature first: a request without one learns nothing about deployments.
    deps.uploads.authorize(target, length);
    await deps.deployments.acceptsUpload(target.deploymentId, undefined);
    const summary = await deps.uploads.receive(target, length, withIdleLimit(bodyOf(c)));
    return c.json({ object_path: `uploads/${target.deploymentId}/${target.uploadId}.tar.gz`, files: summary.files, bytes: summary.bytes });
  });
}

function bodyOf(c: Context): AsyncIterable<Uint8Array> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming) return incoming;
  const body = c.req.raw.body;
  if (!body) return (async function* () {})();
  return body as unknown as AsyncIterable<Uint8Array>;
}

/** A client that stops sending mid-upload gets a 408 instead of holding the upload URL. */
async function* withIdleLimit(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new GantryError("timed_out", `The upload stalled: no bytes arrived for ${BODY_IDLE_TIMEOUT_MS / 1000} s`)),
        BODY_IDLE_TIMEOUT_MS,
      );
    });
    try {
      const next = await Promise.race([iterator.next(), stalled]);
      if (next.done) return;
      yield next.value;
    } finally {
      clearTimeout(timer);
    }
  }
}
