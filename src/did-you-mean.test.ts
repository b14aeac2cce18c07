import { describe, expect, it } from "vitest";
import { closest } from "./did-you-mean.js";

describe("closest", () => {
  it("finds the word one or two edits away", () => {
    expect(closest("graph", ["graphs", "env", "http"])).toBe("graphs");
    expect(closest("valuez", ["values", "updates", "messages"])).toBe("values");
    expect(closest("postgress:", ["postgres:", "postgresql:"])).toBe("postgres:");
  });

  it("counts two neighbouring letters swapped as one edit", () => {
    expect(closest("dve", ["dev", "serve", "deploy"])).toBe("dev");
    expect(closest("kyes", ["keys"])).toBe("keys");
    expect(closest("sevre", ["dev", "serve"])).toBe("serve");
  });

  it("finds nothing for a word far from every candidate", () => {
    expect(closest("banana", ["values", "updates"])).toBeUndefined();
    expect(closest("xy", ["env"])).toBeUndefined();
  });
});
