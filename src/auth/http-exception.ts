// Recognises the SDK's `HTTPException` (from @langchain/langgraph-sdk/auth) by its shape: an Error
// with a numeric HTTP status and a headers object. A user's project may bring its own SDK copy, so
// `instanceof` against ours would miss theirs.
import { AuthRejection } from "../errors.js";

export function asAuthRejection(err: unknown): AuthRejection | null {
  if (!(err instanceof Error)) return null;
  const { status, headers } = err as Error & { status?: unknown; headers?: unknown };
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599) return null;
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (plain[name] = value));
  else if (typeof headers === "object" && headers !== null) {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined && value !== null) plain[name] = String(value);
  }
  return new AuthRejection(status, err.message || "Request refused", plain);
}
