// Semantic indexing of store items (langgraph.json `store.index`): which texts of an item get
// embedded, under which field names, and the checks on what the embedding function returns. Field
// paths follow LangGraph's: "$" is the whole value, "a.b" a nested key, "a[0]" / "a[-1]" one
// element, "a[*]" every element (each embedded on its own, named "a[*].0", "a[*].1", ...).
import type { JsonObject } from "../storage/records.js";
import type { StoreVector } from "../storage/store-ports.js";
import type { StoreIndex } from "../runtime/store-embedder.js";

/** The texts at a field path, as LangGraph extracts them: strings as they are, other values as JSON. */
export function textsAtPath(value: unknown, path: string): string[] {
  if (path === "$") return [JSON.stringify(value)];
  const tokens = path.match(/[^.[\]]+|\[[^\]]*\]/g) ?? [];
  let current: unknown[] = [value];
  for (const token of tokens) {
    const next: unknown[] = [];
    for (const node of current) {
      if (token.startsWith("[")) {
        if (!Array.isArray(node)) continue;
        const index = token.slice(1, -1);
        if (index === "*") next.push(...node);
        else if (/^-?\d+$/.test(index)) {
          const i = Number(index);
          const element = node[i < 0 ? node.length + i : i];
          if (element !== undefined) next.push(element);
        }
      } else if (typeof node === "object" && node !== null && !Array.isArray(node) && token in node) {
        next.push((node as Record<string, unknown>)[token]);
      }
    }
    current = next;
  }
  return current.filter((v) => v !== null && v !== undefined).map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
}

/** (field, text) pairs to embed for an item: one per text, numbered when a path yields several. */
export function textsToEmbed(value: JsonObject, fields: string[]): Array<{ field: string; text: string }> {
  return fields.flatMap((path) => {
    const texts = textsAtPath(value, path);
    return texts.length === 1 ? [{ field: path, text: texts[0]! }] : texts.map((text, i) => ({ field: `${path}.${i}`, text }));
  });
}

export async function embedItem(index: StoreIndex, value: JsonObject, fields: string[]): Promise<StoreVector[]> {
  const texts = textsToEmbed(value, fields);
  if (texts.length === 0) return [];
  const vectors = await index.embedder.embedDocuments(texts.map((t) => t.text));
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new Error(`store.index.embed returned ${Array.isArray(vectors) ? vectors.length : "no list of"} vectors for ${texts.length} texts`);
  }
  return texts.map(({ field }, i) => ({ field, vector: checkVector(index.dims, vectors[i]) }));
}

export async function embedQuery(index: StoreIndex, query: string): Promise<number[]> {
  return checkVector(index.dims, await index.embedder.embedQuery(query));
}

/** A vector of the wrong size would score against stored ones as garbage, so it fails loudly instead. */
function checkVector(dims: number, vector: unknown): number[] {
  if (!Array.isArray(vector) || vector.length !== dims || !vector.every((x) => typeof x === "number" && Number.isFinite(x))) {
    const got = Array.isArray(vector) ? `a vector of ${vector.length}` : typeof vector;
    throw new Error(`store.index.embed returned ${got}, not ${dims} finite numbers (store.index.dims)`);
  }
  return vector as number[];
}
