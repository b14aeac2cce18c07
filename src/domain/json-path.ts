// Reads `values.messages[-1].content`-style paths out of a record, for thread search `extract`.
// Negative indexes count from the end; a path that leads nowhere yields null.

export function readPath(root: unknown, path: string): unknown {
  const tokens = path.match(/[^.[\]]+|\[-?\d+\]/g) ?? [];
  let current: unknown = root;
  for (const token of tokens) {
    if (current === null || current === undefined) return null;
    if (token.startsWith("[")) {
      if (!Array.isArray(current)) return null;
      const index = Number(token.slice(1, -1));
      current = current[index < 0 ? current.length + index : index];
    } else {
      if (typeof current !== "object" || Array.isArray(current)) return null;
      current = (current as Record<string, unknown>)[token];
    }
  }
  return current === undefined ? null : current;
}
