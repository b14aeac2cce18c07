// Requests for every operation of a running server's /openapi.json: path parameters, query strings
// and bodies generated from the schemas, half of them then made hostile. Each is sent over real
// HTTP with a bound on the time to its answer; the tally keeps statuses and the slowest answer.
import fc from "fast-check";
import { fromSchema, type JsonSchema, type KnownStrings } from "./schema-arbitrary.js";
import { brokenJsonText, describeValue, hugeStrings, mutateBody, oddStrings, toJsonText } from "./hostile-values.js";

interface Parameter {
  name: string;
  in: "path" | "query";
  schema?: JsonSchema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: JsonSchema;
}

export interface FuzzRequest {
  method: string;
  /** The path with its parameters filled in, and the query string. */
  target: string;
  /** A JSON value (with deep placeholders), or raw text that is not JSON. */
  body?: { json: unknown } | { raw: string };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
}

/** The routes worth fuzzing: everything but the documents about the API itself. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path === "/openapi.json" || path === "/docs") continue;
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody?.content?.["application/json"]?.schema;
      out.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], ...(body ? { body } : {}) });
    }
  }
  return out;
}

/** encodeURIComponent, except that a lone surrogate goes out as the bytes a lax encoder would write (%ED%A0%80). */
function encodeAny(text: string): string {
  return text.replace(/[\s\S]/gu, (ch) => {
    if (ch.length === 2 || !/[\uD800-\uDFFF]/.test(ch)) return encodeURIComponent(ch);
    const unit = ch.charCodeAt(0);
    return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
  });
}

const pathValue = (known: KnownStrings): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: known.map(encodeAny) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: oddStrings.map(encodeAny) },
    { weight: 1, arbitrary: fc.constantFrom("%00", "%ZZ", "%ED%A0%80", "%C0%AE", "..", "echo") },
    { weight: 1, arbitrary: hugeStrings.map((s) => s.slice(0, 5_000)) },
  );

const queryValue = (schema: JsonSchema | undefined, known: KnownStrings): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fromSchema(schema, known).map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""))) },
    { weight: 1, arbitrary: oddStrings },
    { weight: 1, arbitrary: fc.constantFrom("-1", "0", "1e999", "9007199254740993", "NaN", "true", "[1,2]", "a,b,,") },
  );

function requestFor(op: Operation, known: KnownStrings): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === "path");
  const queryParams = op.parameters.filter((p) => p.in === "query");
  const path = fc.tuple(...pathParams.map(() => pathValue(known))).map((values) => {
    let filled = op.path;
    pathParams.forEach((p, i) => (filled = filled.replace(`{${p.name}}`, values[i]!)));
    return filled;
  });
  const query = fc
    .tuple(fc.subarray(queryParams), fc.array(fc.tuple(fc.oneof(oddStrings, fc.string({ maxLength: 6 })), oddStrings), { maxLength: 1 }))
    .chain(([chosen, extra]) =>
      fc.tuple(...chosen.map((p) => queryValue(p.schema, known).map((v) => [p.name, v] as [string, string]))).map((pairs) => [...pairs, ...extra]),
    )
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encodeAny(k)}=${encodeAny(v)}`).join("&")}` : ""));
  const body: fc.Arbitrary<FuzzRequest["body"]> = op.body
    ? fromSchema(op.body, known).chain((valid) =>
        fc.oneof(
          { weight: 2, arbitrary: fc.constant<FuzzRequest["body"]>({ json: valid }) },
          { weight: 3, arbitrary: mutateBody(valid).map((json) => ({ json })) },
          { weight: 1, arbitrary: brokenJsonText.map((raw) => ({ raw })) },
        ),
      )
    : op.method === "GET"
      ? fc.constant(undefined)
      : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: brokenJsonText.map((raw) => ({ raw })) });
  return fc.tuple(path, query, body).map(([p, q, b]) => ({ method: op.method, target: p + q, ...(b ? { body: b } : {}) }));
}

export function anyRequest(doc: OpenApiDocument, known: KnownStrings): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...operationsOf(doc).map((op) => requestFor(op, known)));
}

export function describeRequest(request: FuzzRequest): string {
  const body =
    request.body === undefined
      ? ""
      : "json" in request.body
        ? ` with body ${describeValue(request.body.json)}`
        : ` with raw body ${describeValue(request.body.raw)}`;
  return `${request.method} ${request.target.length > 300 ? `${request.target.slice(0, 300)}… (${request.target.length} characters)` : request.target}${body}`;
}

export class Tally {
  readonly byStatus = new Map<number, number>();
  sent = 0;
  slowestMs = 0;
  slowest = "";

  record(status: number, ms: number, request: FuzzRequest): void {
    this.sent += 1;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    if (ms > this.slowestMs) {
      this.slowestMs = ms;
      this.slowest = describeRequest(request).slice(0, 200);
    }
  }

  summary(): string {
    const statuses = [...this.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
    return `${this.sent} requests (${statuses.join(", ")}); slowest answer ${Math.round(this.slowestMs)} ms: ${this.slowest}`;
  }
}

/**
 * Sends one request and checks the properties that hold for every input: an answer (its status
 * line; a stream's body may rightly stay open) within `boundMs`, and never a 5xx.
 */
export async function sendChecked(url: string, request: FuzzRequest, boundMs: number, tally: Tally): Promise<void> {
  const started = performance.now();
  const text = request.body === undefined ? undefined : "json" in request.body ? toJsonText(request.body.json) : request.body.raw;
  let response: Response;
  try {
    response = await fetch(`${url}${request.target}`, {
      method: request.method,
      headers: text === undefined ? {} : { "content-type": "application/json" },
      ...(text === undefined ? {} : { body: text }),
      signal: AbortSignal.timeout(boundMs),
    });
  } catch (err) {
    const why =
      (err as Error).name === "TimeoutError"
        ? `No answer within ${boundMs} ms`
        : `The request failed (${(err as Error).message}; ${String((err as Error).cause ?? "")})`;
    throw new Error(`${why} to: ${describeRequest(request)}`);
  }
  const ms = performance.now() - started;
  tally.record(response.status, ms, request);
  const streaming = response.headers.get("content-type")?.startsWith("text/event-stream");
  const answer = streaming ? "" : await response.text().catch(() => "");
  if (streaming) await response.body?.cancel().catch(() => undefined);
  if (response.status >= 500) {
    throw new Error(`HTTP ${response.status} ${answer.slice(0, 300)} to: ${describeRequest(request)}`);
  }
}
