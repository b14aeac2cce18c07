// Which stream mode an event name belongs to, so readers can keep only the modes they asked for.

/** Event names that are not a stream mode's output: every reader gets them. */
export const ALWAYS_DELIVERED = new Set(["metadata", "error", "feedback", "end"]);

export function modeOf(eventName: string): string {
  const base = eventName.split("|")[0]!;
  if (base === "messages") return "messages-tuple";
  if (base.startsWith("messages/")) return "messages";
  return base;
}

export function wants(modes: ReadonlySet<string>, eventName: string): boolean {
  return ALWAYS_DELIVERED.has(eventName) || modes.has(modeOf(eventName));
}
