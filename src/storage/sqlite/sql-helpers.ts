// Small pieces shared by the SQLite repos.
import type { JsonObject } from "../records.js";

export function parseJson<T = JsonObject>(text: string): T {
  return JSON.parse(text) as T;
}

/** A LIKE pattern for a case-insensitive substring match that takes %, _ and \ literally. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => "\\" + c)}%`;
}
