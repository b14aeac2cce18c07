// Source archives uploaded for `internal_source` revisions (the official CLI's `deploy --remote`).
// POST .../upload-url issues a URL on the control plane itself, signed with a key derived from the
// secrets key: it names one deployment and one upload, expires after a few minutes, needs no API
// key, and takes one archive (the file is created exclusively, so a second PUT is refused). The
// archive is checked (unpack.ts's rules) before it is kept; the object path the URL came with is
// what a revision's source_tarball_path names. Archives live in <dir>/<deployment>/<upload>.tar.gz
// and are pruned with the deployment's builds.
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { GantryError } from "../../errors.js";
import { isUuid, newId } from "../../ids.js";
import { ArchiveError, checkArchive, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from "./unpack.js";

/** The official CLI's own cap (its X-Goog-Content-Length-Range), kept here too. */
export const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;
const URL_TTL_MS = 15 * 60 * 1000;
const OBJECT_PATH = /^uploads\/([0-9a-f-]{36})\/([0-9a-f-]{36})\.tar\.gz$/;

export interface SourceUploadsOptions {
  dir: string;
  /** Signs upload URLs; derived from the secrets key, so URLs survive a restart and no one else can make one. */
  signingKey: Buffer;
  ttlMs?: number;
  maxBytes?: number;
  limits?: ArchiveLimits;
}

export interface UploadTarget {
  deploymentId: string;
  uploadId: string;
  /** The URL's query parameters, as received. */
  expires: string | undefined;
  signature: string | undefined;
}

export interface IssuedUpload {
  upload_url: string;
  object_path: string;
}

export class SourceUploads {
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly limits: ArchiveLimits;

  constructor(private readonly options: SourceUploadsOptions) {
    this.ttlMs = options.ttlMs ?? URL_TTL_MS;
    this.maxBytes = options.maxBytes ?? MAX_UPLOAD_BYTES;
    this.limits = options.limits ?? DEFAULT_ARCHIVE_LIMITS;
  }

  /** `baseUrl`: the control plane's public address, which the client PUTs to. */
  issue(deploymentId: string, baseUrl: string): IssuedUpload {
    const uploadId = newId();
    const expires = Date.now() + this.ttlMs;
    const signature = this.sign(deploymentId, uploadId, expires);
    return {
      upload_url: `${baseUrl}/uploads/${deploymentId}/${uploadId}?expires=${expires}&signature=${signature}`,
      object_path: `uploads/${deploymentId}/${uploadId}.tar.gz`,
    };
  }

  /** A bad or expired signature is refused (403), and a declared size over the limit (413), before anything is read. */
  authorize(target: UploadTarget, declaredLength: number | undefined): void {
    const { deploymentId, uploadId } = target;
    const expires = Number(target.expires);
    if (
      !isUuid(deploymentId) ||
      !isUuid(uploadId) ||
      !Number.isSafeInteger(expires) ||
      !this.signatureMatches(deploymentId, uploadId, expires, target.signature)
    )
      throw new GantryError("forbidden", "This upload URL is not valid: request a new one with POST /v2/deployments/{id}/upload-url.");
    if (Date.now() > expires) throw new GantryError("forbidden", "This upload URL has expired: request a new one with POST /v2/deployments/{id}/upload-url.");
    if (declaredLength !== undefined && declaredLength > this.maxBytes)
      throw new GantryError("too_large", `The archive is ${declaredLength} bytes; the limit is ${this.maxBytes}.`);
  }

  /**
   * Takes the body of a PUT to an issued URL. Refused besides authorize()'s: a URL already used
   * (409), a body over the limit (413), an archive that breaks the rules (400).
   */
  async receive(target: UploadTarget, declaredLength: number | undefined, body: AsyncIterable<Uint8Array>): Promise<{ files: number; bytes: number }> {
    this.authorize(target, declaredLength);
    const { deploymentId, uploadId } = target;
    const final = this.fileOf(deploymentId, uploadId);
    if (existsSync(final)) throw new GantryError("conflict", "This upload URL was already used: request a new one.");
    await mkdir(join(this.options.dir, deploymentId), { recursive: true });
    const part = `${final}.part`;
    // Exclusive: of two PUTs to one URL at once, the second is refused here.
    const handle = await open(part, "wx").catch((err: NodeJS.ErrnoException) => {
      if (err.code === "EEXIST") throw new GantryError("conflict", "This upload URL is being used by another upload.");
      throw err;
    });
    let kept = false;
    try {
      let size = 0;
      try {
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > this.maxBytes) throw new GantryError("too_large", `The archive is larger than the limit of ${this.maxBytes} bytes.`);
          await handle.write(chunk);
        }
      } finally {
        await handle.close();
      }
      const summary = await checkArchive(part, this.limits).catch((err: unknown) => {
        if (err instanceof ArchiveError) throw new GantryError("malformed", `The source archive is refused: ${err.message}.`);
        throw err;
      });
      await rename(part, final);
      kept = true;
      return summary;
    } finally {
      if (!kept) await rm(part, { force: true });
    }
  }

  /** The archive a revision's source_tarball_path names, if it is one of this deployment's uploads and was received. */
  pathOf(deploymentId: string, objectPath: string): string | undefined {
    const match = OBJECT_PATH.exec(objectPath);
    if (!match || match[1] !== deploymentId || !isUuid(match[2]!)) return undefined;
    const file = this.fileOf(deploymentId, match[2]!);
    return existsSync(file) ? file : undefined;
  }

  /** Whether `objectPath` has the shape of a path this deployment's upload-url issues (received or not). */
  isObjectPathOf(deploymentId: string, objectPath: string): boolean {
    const match = OBJECT_PATH.exec(objectPath);
    return match !== null && match[1] === deploymentId;
  }

  /**
   * Bounds a deployment's archives as its builds are bounded: those in `keep` (named by the
   * revisions whose builds are kept) stay, the newest fill the room left up to `max`, the others
   * go. Uploads still arriving (.part) are left alone.
   */
  async prune(deploymentId: string, keep: ReadonlySet<string>, max: number): Promise<number> {
    const root = join(this.options.dir, deploymentId);
    if (!existsSync(root)) return 0;
    const archives = await Promise.all(
      (await readdir(root))
        .filter((name) => name.endsWith(".tar.gz"))
        .map(async (name) => ({ objectPath: `uploads/${deploymentId}/${name}`, file: join(root, name), at: (await stat(join(root, name))).mtimeMs })),
    );
    archives.sort((a, b) => b.at - a.at);
    let room = max - archives.filter((a) => keep.has(a.objectPath)).length;
    let removed = 0;
    for (const archive of archives) {
      if (keep.has(archive.objectPath)) continue;
      if (room > 0) room--;
      else {
        await rm(archive.file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async removeDeployment(deploymentId: string): Promise<void> {
    await rm(join(this.options.dir, deploymentId), { recursive: true, force: true });
  }

  private fileOf(deploymentId: string, uploadId: string): string {
    return join(this.options.dir, deploymentId, `${uploadId}.tar.gz`);
  }

  private sign(deploymentId: string, uploadId: string, expires: number): string {
    return createHmac("sha256", this.options.signingKey).update(`${deploymentId}/${uploadId}/${expires}`).digest("base64url");
  }

  private signatureMatches(deploymentId: string, uploadId: string, expires: number, given: string | undefined): boolean {
    if (!given) return false;
    const expected = Buffer.from(this.sign(deploymentId, uploadId, expires));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

/** The upload-signing key, derived from the secrets key so one secret configures both. */
export function uploadSigningKey(secretsKey: Buffer): Buffer {
  return createHmac("sha256", secretsKey).update("gantry control plane: source upload URLs").digest();
}
