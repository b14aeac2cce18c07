// Upload URLs without a server: what a signature binds (deployment, upload, expiry), single use,
// the size limit while streaming, and pruning that keeps the archives revisions still need.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SourceUploads, type UploadTarget } from "../../src/control-plane/uploads/source-uploads.js";
import { tarGzOf } from "./tar-fixture.js";

const root = mkdtempSync(join(tmpdir(), "gantry-uploads-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DEPLOYMENT = "0190a1c1-0000-7000-8000-000000000001";
const OTHER = "0190a1c1-0000-7000-8000-000000000002";

function targetOf(url: string): UploadTarget {
  const parsed = new URL(url);
  const [, , deploymentId, uploadId] = parsed.pathname.split("/");
  return {
    deploymentId: deploymentId!,
    uploadId: uploadId!,
    expires: parsed.searchParams.get("expires") ?? undefined,
    signature: parsed.searchParams.get("signature") ?? undefined,
  };
}

async function* chunks(...parts: Buffer[]) {
  for (const part of parts) yield part;
}

const archive = tarGzOf([{ path: "langgraph.json", content: "{}" }]);

describe("source uploads", () => {
  const uploads = new SourceUploads({ dir: join(root, "uploads"), signingKey: Buffer.alloc(32, 1), maxBytes: 4096 });

  it("takes one archive per URL, for the deployment and upload the signature names", async () => {
    const issued = uploads.issue(DEPLOYMENT, "http://cp.test");
    expect(issued.upload_url).toMatch(/^http:\/\/cp\.test\/uploads\/[0-9a-f-]{36}\/[0-9a-f-]{36}\?expires=\d+&signature=/);
    const target = targetOf(issued.upload_url);
    expect(() => uploads.authorize({ ...target, deploymentId: OTHER }, undefined)).toThrow("not valid");
    expect(() => uploads.authorize({ ...target, expires: String(Number(target.expires) + 1) }, undefined)).toThrow("not valid");
    expect(uploads.pathOf(DEPLOYMENT, issued.object_path)).toBeUndefined();
    expect(await uploads.receive(target, archive.length, chunks(archive))).toEqual({ files: 1, bytes: 2 });
    expect(uploads.pathOf(DEPLOYMENT, issued.object_path)).toBe(join(root, "uploads", DEPLOYMENT, `${target.uploadId}.tar.gz`));
    expect(uploads.pathOf(OTHER, issued.object_path)).toBeUndefined();
    await expect(uploads.receive(target, undefined, chunks(archive))).rejects.toMatchObject({ kind: "conflict" });
  });

  it("refuses an expired URL, and a body over the limit declared or streamed, keeping nothing", async () => {
    const expired = new SourceUploads({ dir: join(root, "uploads"), signingKey: Buffer.alloc(32, 1), ttlMs: -1 });
    expect(() => expired.authorize(targetOf(expired.issue(DEPLOYMENT, "http://cp.test").upload_url), undefined)).toThrow("expired");
    const target = targetOf(uploads.issue(DEPLOYMENT, "http://cp.test").upload_url);
    expect(() => uploads.authorize(target, 5000)).toThrow("limit is 4096");
    await expect(uploads.receive(target, undefined, chunks(Buffer.alloc(3000), Buffer.alloc(3000)))).rejects.toMatchObject({ kind: "too_large" });
    await expect(uploads.receive(target, undefined, chunks(Buffer.from("not an archive")))).rejects.toMatchObject({ kind: "malformed" });
    expect(readdirSync(join(root, "uploads", DEPLOYMENT)).filter((f) => f.includes(target.uploadId))).toEqual([]);
  });

  it("prunes a deployment's archives to the newest, keeping those revisions still use", async () => {
    const paths: string[] = [];
    for (let i = 0; i < 4; i++) {
      const issued = uploads.issue(OTHER, "http://cp.test");
      await uploads.receive(targetOf(issued.upload_url), undefined, chunks(archive));
      paths.push(issued.object_path);
      await new Promise((done) => setTimeout(done, 15));
    }
    expect(await uploads.prune(OTHER, new Set([paths[0]!]), 2)).toBe(2);
    expect(paths.map((p) => uploads.pathOf(OTHER, p) !== undefined)).toEqual([true, false, false, true]);
    await uploads.removeDeployment(OTHER);
    expect(existsSync(join(root, "uploads", OTHER))).toBe(false);
  });
});
