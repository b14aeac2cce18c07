// Stand-ins for the tracing backends, recording what Gantry's official clients send them: a
// LangSmith endpoint (what the `langsmith` client posts: run creates and updates, batched as JSON
// or multipart) and an OTLP/HTTP receiver (JSON-encoded spans). Waiting is on arrivals, not time.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

export interface Receiver<T> {
  url: string;
  received: T[];
  /** Resolves with the first record (already here or arriving) that matches; rejects after deadlineMs. */
  waitFor(match: (record: T) => boolean, deadlineMs?: number): Promise<T>;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

async function receiver<T>(handle: (req: IncomingMessage, raw: Buffer) => Promise<{ records: T[]; reply: unknown }>): Promise<Receiver<T>> {
  const received: T[] = [];
  const waiters: Array<{ match: (r: T) => boolean; done: (r: T) => void }> = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const { records, reply } = await handle(req, await body(req));
      for (const record of records) {
        received.push(record);
        for (const w of [...waiters]) {
          if (w.match(record)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.done(record);
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    waitFor(match, deadlineMs = 30_000) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`nothing matching arrived within ${deadlineMs} ms; got ${JSON.stringify(received).slice(0, 3000)}`)),
          deadlineMs,
        );
        waiters.push({
          match,
          done: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      });
    },
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** A run as LangSmith receives it: its create (`post`) or an update (`patch`), fields as sent. */
export interface LangSmithRecord {
  op: "post" | "patch";
  run: Record<string, unknown> & { id: string };
  apiKey: string | undefined;
}

export function langsmithReceiver(): Promise<Receiver<LangSmithRecord>> {
  return receiver<LangSmithRecord>(async (req, raw) => {
    const apiKey = req.headers["x-api-key"] as string | undefined;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "GET") return { records: [], reply: path === "/info" ? { version: "stand-in" } : {} };
    if (path === "/runs/batch") {
      const batch = JSON.parse(raw.toString("utf8")) as { post?: LangSmithRecord["run"][]; patch?: LangSmithRecord["run"][] };
      return {
        records: [
          ...(batch.post ?? []).map((run) => ({ op: "post" as const, run, apiKey })),
          ...(batch.patch ?? []).map((run) => ({ op: "patch" as const, run, apiKey })),
        ],
        reply: {},
      };
    }
    if (path === "/runs/multipart") return { records: await multipartRuns(req, raw, apiKey), reply: {} };
    if (path === "/runs" && req.method === "POST") return { records: [{ op: "post", run: JSON.parse(raw.toString("utf8")), apiKey }], reply: {} };
    if (path.startsWith("/runs/") && req.method === "PATCH") {
      return { records: [{ op: "patch", run: { ...JSON.parse(raw.toString("utf8")), id: path.slice("/runs/".length) }, apiKey }], reply: {} };
    }
    return { records: [], reply: {} };
  });
}

/** `post.<id>` / `patch.<id>` parts carry a run; `post.<id>.inputs` and the like add one field to it. */
async function multipartRuns(req: IncomingMessage, raw: Buffer, apiKey: string | undefined): Promise<LangSmithRecord[]> {
  const form = await new Request("http://x", {
    method: "POST",
    headers: { "content-type": String(req.headers["content-type"]) },
    body: new Uint8Array(raw),
  }).formData();
  const runs = new Map<string, LangSmithRecord>();
  for (const [name, value] of form.entries()) {
    const [op, id, field] = name.split(".") as ["post" | "patch", string, string | undefined];
    if (op !== "post" && op !== "patch") continue;
    const text = typeof value === "string" ? value : await value.text();
    const key = `${op}.${id}`;
    const record = runs.get(key) ?? { op, run: { id }, apiKey };
    runs.set(key, record);
    if (field) record.run[field] = JSON.parse(text);
    else Object.assign(record.run, JSON.parse(text));
  }
  return [...runs.values()];
}

/** One span as an OTLP/HTTP JSON export carries it, attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: unknown;
}

export function otlpReceiver(): Promise<Receiver<ReceivedSpan>> {
  return receiver<ReceivedSpan>(async (req, raw) => {
    if (new URL(req.url ?? "/", "http://x").pathname !== "/v1/traces") return { records: [], reply: {} };
    const payload = JSON.parse(raw.toString("utf8")) as {
      resourceSpans: Array<{
        resource: { attributes: Attribute[] };
        scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, "attributes" | "service"> & { attributes?: Attribute[] }> }>;
      }>;
    };
    const spans: ReceivedSpan[] = [];
    for (const rs of payload.resourceSpans) {
      const service = flatten(rs.resource.attributes)["service.name"];
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) spans.push({ ...s, parentSpanId: s.parentSpanId ?? "", attributes: flatten(s.attributes ?? []), service });
      }
    }
    return { records: spans, reply: {} };
  });
}

type Attribute = { key: string; value: Record<string, unknown> };

function flatten(attributes: Attribute[]): Record<string, unknown> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
}
