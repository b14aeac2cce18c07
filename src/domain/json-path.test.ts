import { describe, expect, it } from "vitest";
import { readPath } from "./json-path.js";

describe("readPath", () => {
  const thread = { values: { messages: [{ content: "a" }, { content: "b" }] }, metadata: { user: { id: 7 } } };

  it("reads nested keys and array indexes, negative from the end", () => {
    expect(readPath(thread, "values.messages[0].content")).toBe("a");
    expect(readPath(thread, "values.messages[-1].content")).toBe("b");
    expect(readPath(thread, "metadata.user.id")).toBe(7);
  });

  it("yields null for paths that lead nowhere", () => {
    expect(readPath(thread, "values.messages[5]")).toBeNull();
    expect(readPath(thread, "metadata.user.id.x")).toBeNull();
    expect(readPath(thread, "values.messages.content")).toBeNull();
    expect(readPath({ values: null }, "values.a")).toBeNull();
  });
});
