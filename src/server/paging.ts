// Search responses: `select` projection and the X-Pagination-* headers both SDKs read.
import type { Context } from "hono";
import type { Page, Paged } from "../domain/records.js";
import { setAnswerHeader } from "./node-request.js";

export function project<T extends object>(record: T, select: readonly string[] | undefined): Partial<T> {
  if (!select) return record;
  const out: Record<string, unknown> = {};
  for (const field of select) out[field] = (record as Record<string, unknown>)[field] ?? null;
  return out as Partial<T>;
}

/** Total always; Next only when rows remain past this page. */
export function setPaginationHeaders(c: Context, page: Page, result: Paged<unknown>): void {
  setAnswerHeader(c, "X-Pagination-Total", String(result.total));
  const seen = page.offset + result.items.length;
  if (result.items.length > 0 && seen < result.total) setAnswerHeader(c, "X-Pagination-Next", String(seen));
}
