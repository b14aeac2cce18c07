// The source-archive reader and its rules, on archives made by GNU tar (pax and GNU long names) and
// on hand-made hostile ones: every refusal names the entry, and nothing lands outside the target.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { ArchiveError, checkArchive, entryPath, unpackArchive } from "../../src/control-plane/uploads/unpack.js";
import { tarGzOf, tarOf, type FixtureEntry } from "./tar-fixture.js";

const root = mkdtempSync(join(tmpdir(), "gantry-unpack-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function archiveFile(bytes: Buffer): string {
  const file = join(root, `archive-${++n}.tar.gz`);
  writeFileSync(file, bytes);
  return file;
}

/** Unpacks into <case>/build and returns what was refused; <case> holds nothing else afterwards. */
async function refusal(entries: FixtureEntry[]): Promise<string> {
  const box = join(root, `case-${++n}`);
  mkdirSync(join(box, "build"), { recursive: true });
  const file = archiveFile(tarGzOf(entries));
  await expect(checkArchive(file)).rejects.toBeInstanceOf(ArchiveError);
  const err = await unpackArchive(file, join(box, "build")).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ArchiveError);
  expect(readdirSync(box)).toEqual(["build"]);
  expect(readdirSync(root).filter((f) => !/^(archive|case|gnu)-/.test(f))).toEqual([]);
  return (err as Error).message;
}

describe("source archives", () => {
  it("unpacks what GNU tar writes, long names and executable bits included", async () => {
    const src = join(root, "gnu-src");
    const deep = join(src, "a".repeat(60), "b".repeat(60), "c".repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, `${"d".repeat(120)}.ts`), "export const deep = 1;\n");
    writeFileSync(join(src, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
    writeFileSync(join(src, "big.bin"), Buffer.alloc(200_000, 7));
    for (const format of ["pax", "gnu", "ustar"]) {
      if (format === "ustar") rmSync(join(src, "a".repeat(60)), { recursive: true });
      const file = join(root, `gnu-${format}.tar.gz`);
      execFileSync("tar", [`--format=${format}`, "-czf", file, "-C", src, "."]);
      const dest = join(root, `gnu-out-${format}`);
      mkdirSync(dest);
      const summary = await unpackArchive(file, dest);
      expect(summary.files).toBe(format === "ustar" ? 2 : 3);
      expect(await checkArchive(file)).toEqual(summary);
      expect(readFileSync(join(dest, "big.bin")).equals(Buffer.alloc(200_000, 7))).toBe(true);
      expect(statSync(join(dest, "run.sh")).mode & 0o111).not.toBe(0);
      if (format !== "ustar")
        expect(readFileSync(join(dest, "a".repeat(60), "b".repeat(60), "c".repeat(60), `${"d".repeat(120)}.ts`), "utf8")).toContain("deep");
    }
  });

  it("refuses paths that leave the directory, naming the entry", async () => {
    expect(
      await refusal([
        { path: "ok.txt", content: "x" },
        { path: "../escaped.txt", content: "x" },
      ]),
    ).toContain("'../escaped.txt' escapes");
    expect(await refusal([{ path: "a/../../escaped.txt", content: "x" }])).toContain("escapes");
    expect(await refusal([{ path: "/tmp/escaped.txt", content: "x" }])).toContain("absolute");
    expect(entryPath("./src//agent.ts")).toEqual({ path: "src/agent.ts" });
    expect(entryPath("./")).toEqual({ path: "" });
  });

  it("refuses links of every kind, in the tree or out of it, and special files", async () => {
    expect(
      await refusal([
        { path: "out", type: "2", linkpath: "/etc" },
        { path: "out/passwd", content: "x" },
      ]),
    ).toContain("symbolic link");
    expect(await refusal([{ path: "up", type: "2", linkpath: "../.." }])).toContain("symbolic link (to '../..')");
    expect(
      await refusal([
        { path: "f", content: "x" },
        { path: "g", type: "1", linkpath: "f" },
      ]),
    ).toContain("hard link");
    expect(await refusal([{ path: "dev", type: "3" }])).toContain("tar type '3'");
  });

  it("refuses duplicates, too many entries, too many bytes, and what is not a .tar.gz", async () => {
    expect(
      await refusal([
        { path: "a.txt", content: "1" },
        { path: "a.txt", content: "2" },
      ]),
    ).toContain("appears twice");
    expect(
      await refusal([
        { path: "a", content: "1" },
        { path: "a/b", content: "2" },
      ]),
    ).toContain("inside 'a', which is a file");
    expect(
      await refusal([
        { path: "d/f", content: "1" },
        { path: "d", content: "2" },
      ]),
    ).toContain("'d' appears twice");
    const many = Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, content: "x" }));
    await expect(checkArchive(archiveFile(tarGzOf(many)), { maxEntries: 4, maxUnpackedBytes: 1000 })).rejects.toThrow("more than 4 entries");
    await expect(checkArchive(archiveFile(tarGzOf([{ path: "big", content: Buffer.alloc(2000) }])), { maxEntries: 4, maxUnpackedBytes: 1000 })).rejects.toThrow(
      "more than 1000 bytes",
    );
    await expect(checkArchive(archiveFile(Buffer.from("just text")))).rejects.toThrow("not a gzip-compressed tar");
    await expect(checkArchive(archiveFile(gzipSync(Buffer.from("x".repeat(2000)))))).rejects.toThrow("checksum");
    const whole = tarOf([{ path: "a.txt", content: "y".repeat(3000) }]);
    await expect(checkArchive(archiveFile(gzipSync(whole.subarray(0, 1500))))).rejects.toThrow("ends in the middle");
  });
});
