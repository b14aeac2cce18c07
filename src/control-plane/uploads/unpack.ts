// The rules an uploaded source archive (.tar.gz) is held to, and its unpacking into a build
// directory. Only regular files and directories are accepted, at relative paths with no '..': a
// link of any kind is refused, so nothing unpacked can point, or make a later entry write, outside
// the directory. The number of entries and the unpacked size are bounded, so a small archive
// cannot fill the disk. The same rules run when the upload arrives (a bad archive is refused
// there, with a 4xx) and again when a build unpacks it.
import { createReadStream } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { createGunzip } from "node:zlib";
import { readTar, TarFormatError, type TarEntry } from "./tar-reader.js";

export interface ArchiveLimits {
  /** Entries (files and directories). */
  maxEntries: number;
  /** Sum of the entries' sizes once unpacked. */
  maxUnpackedBytes: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxEntries: 20_000, maxUnpackedBytes: 1024 * 1024 * 1024 };

const MAX_PATH = 1024;
const MAX_DEPTH = 64;

/** A refusal of the archive's content: shown to the user as it is. */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveError";
  }
}

export interface ArchiveSummary {
  files: number;
  bytes: number;
}

/** Reads the whole archive and applies every rule, writing nothing. */
export function checkArchive(file: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ArchiveSummary> {
  return walk(file, limits, undefined);
}

/** Unpacks into `dest`, which must be a new, empty directory the caller removes on failure. */
export function unpackArchive(file: string, dest: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ArchiveSummary> {
  return walk(file, limits, resolve(dest));
}

/**
 * The entry's path made relative and plain ("./a//b/" -> "a/b"), or a sentence saying why it is
 * refused. "" is the archive's root directory.
 */
export function entryPath(raw: string): { path: string } | { error: string } {
  if (raw.length > MAX_PATH) return { error: `the path '${raw.slice(0, 80)}...' is longer than ${MAX_PATH} characters` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { error: `the path '${JSON.stringify(raw)}' holds control characters` };
  if (raw.startsWith("/") || /^[A-Za-z]:[\\/]/.test(raw)) return { error: `the path '${raw}' is absolute` };
  if (raw.includes("\\")) return { error: `the path '${raw}' holds a backslash` };
  const parts = raw.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) return { error: `the path '${raw}' escapes the project directory ('..')` };
  if (parts.length > MAX_DEPTH) return { error: `the path '${raw.slice(0, 80)}' is nested more than ${MAX_DEPTH} directories deep` };
  return { path: parts.join("/") };
}

function refusal(entry: TarEntry): string | undefined {
  if (entry.type === "symlink") return `'${entry.path}' is a symbolic link (to '${entry.linkpath}'); archives may hold only files and directories`;
  if (entry.type === "hardlink") return `'${entry.path}' is a hard link (to '${entry.linkpath}'); archives may hold only files and directories`;
  if (entry.type === "other") return `'${entry.path}' is not a file or a directory (tar type '${entry.typeflag}')`;
  return undefined;
}

async function walk(file: string, limits: ArchiveLimits, dest: string | undefined): Promise<ArchiveSummary> {
  const input = createReadStream(file);
  const gunzip = createGunzip();
  input.on("error", (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  let entries = 0;
  let bytes = 0;
  let files = 0;
  let out: FileHandle | undefined;
  // What each path is, its parent directories included: a second entry at a path, or a file where a
  // directory is (or the reverse), is refused before anything is written.
  const seen = new Map<string, "file" | "directory">();
  const claim = (path: string, type: "file" | "directory") => {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join("/");
      if (seen.get(parent) === "file") throw new ArchiveError(`'${path}' is inside '${parent}', which is a file`);
      seen.set(parent, "directory");
    }
    const before = seen.get(path);
    if (before && (before === "file" || type === "file")) throw new ArchiveError(`'${path}' appears twice in the archive`);
    seen.set(path, type);
  };
  try {
    await readTar(gunzip, {
      async entry(entry) {
        const problem = refusal(entry);
        if (problem) throw new ArchiveError(problem);
        const checked = entryPath(entry.path);
        if ("error" in checked) throw new ArchiveError(checked.error);
        if (++entries > limits.maxEntries) throw new ArchiveError(`the archive holds more than ${limits.maxEntries} entries`);
        bytes += entry.size;
        if (bytes > limits.maxUnpackedBytes) throw new ArchiveError(`the archive unpacks to more than ${limits.maxUnpackedBytes} bytes`);
        if (entry.type === "file") files++;
        if (checked.path === "") return;
        claim(checked.path, entry.type === "file" ? "file" : "directory");
        if (!dest) return;
        const target = join(dest, checked.path);
        // Already implied by entryPath; kept as the last word on where a write may go.
        if (!target.startsWith(dest + sep)) throw new ArchiveError(`'${entry.path}' would be written outside the project directory`);
        const made = (dir: string) =>
          mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
            throw new ArchiveError(`'${entry.path}' cannot be created: a file of the archive is in its way (${err.code ?? err.message})`);
          });
        if (entry.type === "directory") {
          await made(target);
          return;
        }
        await made(join(target, ".."));
        // "wx": never through or over something already there, whatever claim() let by.
        out = await open(target, "wx", entry.mode & 0o111 ? 0o755 : 0o644).catch((err: NodeJS.ErrnoException) => {
          throw new ArchiveError(`'${entry.path}' cannot be written: ${err.code ?? err.message}`);
        });
      },
      async data(chunk) {
        if (out) await out.write(chunk);
      },
      async entryEnd() {
        await out?.close();
        out = undefined;
      },
    });
  } catch (err) {
    if (err instanceof TarFormatError) throw new ArchiveError(err.message);
    if ((err as NodeJS.ErrnoException).code === "Z_DATA_ERROR" || (err as NodeJS.ErrnoException).code === "Z_BUF_ERROR")
      throw new ArchiveError("the upload is not a gzip-compressed tar archive (.tar.gz)");
    throw err;
  } finally {
    await out?.close();
    input.destroy();
    gunzip.destroy();
  }
  return { files, bytes };
}
