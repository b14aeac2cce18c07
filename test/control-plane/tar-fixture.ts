// Hand-made tar archives for tests: each header is written field by field, so a test can put in
// exactly the entry a careful writer never would (a '..' path, a symlink out, a device).
import { gzipSync } from "node:zlib";

export interface FixtureEntry {
  path: string;
  /** '0' file (default), '5' directory, '2' symlink, '1' hard link, '3' character device... */
  type?: string;
  content?: string | Buffer;
  linkpath?: string;
  mode?: number;
}

function header(entry: FixtureEntry, size: number): Buffer {
  const block = Buffer.alloc(512);
  const put = (text: string, offset: number, length: number) => block.write(text, offset, length, "utf8");
  const octal = (value: number, offset: number, length: number) => put(value.toString(8).padStart(length - 1, "0") + "\0", offset, length);
  put(entry.path, 0, 100);
  octal(entry.mode ?? 0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(0, 136, 12);
  block.fill(0x20, 148, 156);
  put(entry.type ?? "0", 156, 1);
  put(entry.linkpath ?? "", 157, 100);
  put("ustar\u000000", 257, 8);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return block;
}

export function tarOf(entries: FixtureEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? "");
    parts.push(header(entry, content.length), content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const tarGzOf = (entries: FixtureEntry[]) => gzipSync(tarOf(entries));
