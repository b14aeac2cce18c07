import { describe, it, expect } from "vitest";
import { Command, isCommand, Send } from "@langchain/langgraph";
import { GantryError } from "../errors.js";
import { toLangGraphCommand, type CommandInput } from "./run-command.js";

function invalidMessage(command: unknown): string {
  try {
    toLangGraphCommand(command as CommandInput);
  } catch (err) {
    expect(err).toBeInstanceOf(GantryError);
    expect((err as GantryError).kind).toBe("invalid");
    return (err as GantryError).message;
  }
  throw new Error("expected toLangGraphCommand to throw");
}

describe("toLangGraphCommand", () => {
  it("builds a Command LangGraph recognises, carrying resume and update", () => {
    const command = toLangGraphCommand({ resume: { ok: true }, update: { a: 1 } });
    expect(isCommand(command)).toBe(true);
    expect(command).toBeInstanceOf(Command);
    expect(command.resume).toEqual({ ok: true });
    expect(command.update).toEqual({ a: 1 });
  });

  it("accepts update as a list of [key, value] pairs", () => {
    expect(
      toLangGraphCommand({
        update: [
          ["a", 1],
          ["b", 2],
        ],
      }).update,
    ).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
  });

  it("turns goto objects into Sends and keeps node names, singly or in a list", () => {
    expect(toLangGraphCommand({ goto: "next" }).goto).toEqual(["next"]);
    const goto = toLangGraphCommand({ goto: ["next", { node: "worker", input: { n: 1 } }] }).goto as unknown[];
    expect(goto[0]).toBe("next");
    expect(goto[1]).toBeInstanceOf(Send);
    expect(goto[1]).toMatchObject({ node: "worker", args: { n: 1 } });
  });

  it("treats null members as absent", () => {
    const command = toLangGraphCommand({ resume: "x", update: null, goto: null } as unknown as CommandInput);
    expect(command.update).toBeUndefined();
    expect(command.goto).toEqual([]);
  });

  it("refuses malformed commands, naming the field", () => {
    expect(invalidMessage("resume")).toMatch(/'command'/);
    expect(invalidMessage({ goto: { input: {} } })).toMatch(/'command\.goto\.node'/);
    expect(invalidMessage({ goto: ["a", { node: 3 }] })).toMatch(/'command\.goto\[1\]\.node'/);
    expect(invalidMessage({ goto: 5 })).toMatch(/'command\.goto'/);
    expect(invalidMessage({ update: "x" })).toMatch(/'command\.update'/);
    expect(invalidMessage({ update: [["a", 1], ["b"]] })).toMatch(/'command\.update\[1\]'/);
  });
});
