// A streaming reader of tar archives (POSIX ustar, pax extended headers, GNU long names): the
// format the official CLIs upload. It only reads: it hands each entry's header and then its bytes
// to a visitor, in order, and waits for the visitor before reading on, so a slow disk slows the
// reader instead of filling memory. What an entry may be and where it may go is unpack.ts's job.

const BLOCK = 512;
/** A pax header or GNU long name is a few paths; anything bigger is not a source archive. */
const MAX_META_BYTES = 64 * 1024;
const DATA_CHUNK = 64 * 1024;

export type TarEntryType = "file" | "directory" | "symlink" | "hardlink" | "other";

export interface TarEntry {
  path: string;
  type: TarEntryType;
  /** The raw typeflag, for messages about entries of other types. */
  typeflag: string;
  size: number;
  mode: number;
  linkpath: string;
}

export interface TarVisitor {
  /** Called for each entry before its bytes; throwing stops the read. */
  entry(entry: TarEntry): Promise<void>;
  data(chunk: Buffer): Promise<void>;
  entryEnd(): Promise<void>;
}

export class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TarFormatError";
  }
}

/** Reads exactly n bytes at a time from a stream of chunks. */
class ByteReader {
  private buffered: Buffer[] = [];
  private length = 0;
  private readonly iterator: AsyncIterator<Buffer>;
  private done = false;

  constructor(source: AsyncIterable<Buffer>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** Up to n bytes (fewer only at the end of the stream). */
  async read(n: number): Promise<Buffer> {
    while (this.length < n && !this.done) {
      const next = await this.iterator.next();
      if (next.done) this.done = true;
      else if (next.value.length > 0) {
        this.buffered.push(next.value);
        this.length += next.value.length;
      }
    }
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered, this.length);
    const taken = all.subarray(0, Math.min(n, all.length));
    const rest = all.subarray(taken.length);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.length = rest.length;
    return taken;
  }

  async exactly(n: number, what: string): Promise<Buffer> {
    const bytes = await this.read(n);
    if (bytes.length < n) throw new TarFormatError(`The archive ends in the middle of ${what}`);
    return bytes;
  }
}

const TYPES: Record<string, TarEntryType> = { "0": "file", "\0": "file", "7": "file", "5": "directory", "2": "symlink", "1": "hardlink" };

export async function readTar(source: AsyncIterable<Buffer>, visitor: TarVisitor): Promise<void> {
  const reader = new ByteReader(source);
  // Set by pax 'x' or GNU 'L'/'K' headers, for the next entry only.
  let pending: { path?: string; linkpath?: string; size?: number } = {};
  for (;;) {
    const header = await reader.read(BLOCK);
    if (header.length === 0) throw new TarFormatError("The archive ends without its end-of-archive blocks");
    if (header.length < BLOCK) throw new TarFormatError("The archive ends in the middle of a header");
    // Two zero blocks end an archive; some writers stop after the first one.
    if (header.every((byte) => byte === 0)) return;
    checkChecksum(header);
    const typeflag = String.fromCharCode(header[156]!);
    const size = pending.size ?? numberField(header, 124, 12, "size");
    if (typeflag === "x" || typeflag === "g" || typeflag === "L" || typeflag === "K") {
      if (size > MAX_META_BYTES) throw new TarFormatError(`An extended header of ${size} bytes is larger than ${MAX_META_BYTES}`);
      const body = (await reader.exactly(padded(size), "an extended header")).subarray(0, size);
      if (typeflag === "x") pending = { ...pending, ...paxRecords(body) };
      else if (typeflag === "L") pending.path = cString(body);
      else if (typeflag === "K") pending.linkpath = cString(body);
      // 'g' (global) headers set defaults such as a comment; nothing a build needs.
      continue;
    }
    const name = cString(header.subarray(0, 100));
    const prefix = header.subarray(257, 262).toString("latin1") === "ustar" ? cString(header.subarray(345, 500)) : "";
    const entry: TarEntry = {
      path: pending.path ?? (prefix ? `${prefix}/${name}` : name),
      type: TYPES[typeflag] ?? "other",
      typeflag,
      size,
      mode: numberField(header, 100, 8, "mode"),
      linkpath: pending.linkpath ?? cString(header.subarray(157, 257)),
    };
    pending = {};
    // Only files carry bytes that mean anything; other entries' declared sizes are skipped over.
    await visitor.entry(entry);
    let left = size;
    while (left > 0) {
      const chunk = await reader.exactly(Math.min(left, DATA_CHUNK), `the contents of ${entry.path}`);
      left -= chunk.length;
      if (entry.type === "file") await visitor.data(chunk);
    }
    await reader.exactly(padded(size) - size, `the padding of ${entry.path}`);
    await visitor.entryEnd();
  }
}

const padded = (size: number) => Math.ceil(size / BLOCK) * BLOCK;

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString("utf8");
}

/** Octal digits, or the base-256 form (high bit set) GNU tar uses for big values. */
function numberField(header: Buffer, offset: number, length: number, what: string): number {
  const field = header.subarray(offset, offset + length);
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value)) throw new TarFormatError(`A header's ${what} is out of range`);
    return value;
  }
  const text = cString(field).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError(`A header's ${what} is not an octal number: '${text}'`);
  return Number.parseInt(text, 8);
}

function checkChecksum(header: Buffer): void {
  const recorded = numberField(header, 148, 8, "checksum");
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  if (sum !== recorded) throw new TarFormatError("A header's checksum does not match: this is not a tar archive, or it is damaged");
}

/** "<length> <key>=<value>\n" records; only the keys an entry's identity needs are kept. */
function paxRecords(body: Buffer): { path?: string; linkpath?: string; size?: number } {
  const out: { path?: string; linkpath?: string; size?: number } = {};
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number.parseInt(body.subarray(at, space).toString("latin1"), 10);
    if (!Number.isInteger(length) || length <= space - at || at + length > body.length) throw new TarFormatError("A pax extended header is malformed");
    const record = body.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) {
      const key = record.slice(0, eq);
      const value = record.slice(eq + 1);
      if (key === "path") out.path = value;
      else if (key === "linkpath") out.linkpath = value;
      else if (key === "size") {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new TarFormatError(`A pax size is not a whole number: '${value}'`);
        out.size = Number(value);
      }
    }
    at += length;
  }
  return out;
}
