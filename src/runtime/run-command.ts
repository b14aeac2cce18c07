// The run payload's `command` as a LangGraph Command. LangGraph recognises commands and sends by
// their `lg_name` marker, so ones built from our copy of the library work with the user's copy.
import { Command, Send } from "@langchain/langgraph";
import { invalid } from "../errors.js";

export interface SendInput {
  node: string;
  input?: unknown;
}

export interface CommandInput {
  resume?: unknown;
  update?: Record<string, unknown> | Array<[string, unknown]>;
  goto?: string | SendInput | Array<string | SendInput>;
}

/** Throws GantryError "invalid" naming the offending field when `command` has the wrong shape. */
export function toLangGraphCommand(command: CommandInput): Command {
  if (!isObject(command) || Array.isArray(command)) throw invalid("Field 'command' must be an object");
  // Clients send null for members they leave out (the SDKs strip them, other clients may not).
  const update = command.update ?? undefined;
  const goto = command.goto ?? undefined;
  return new Command({
    resume: command.resume,
    update: update === undefined ? undefined : checkUpdate(update),
    goto: goto === undefined ? undefined : toGoto(goto),
  });
}

function checkUpdate(update: unknown): Record<string, unknown> | Array<[string, unknown]> {
  if (Array.isArray(update)) {
    update.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string") {
        throw invalid(`Field 'command.update[${i}]' must be a [key, value] pair with a string key`);
      }
    });
    return update as Array<[string, unknown]>;
  }
  if (!isObject(update)) {
    throw invalid("Field 'command.update' must be an object or a list of [key, value] pairs");
  }
  return update;
}

function toGoto(goto: unknown): Array<string | Send> {
  if (Array.isArray(goto)) return goto.map((item, i) => toGotoItem(item, `command.goto[${i}]`));
  return [toGotoItem(goto, "command.goto")];
}

function toGotoItem(item: unknown, field: string): string | Send {
  if (typeof item === "string") {
    if (item === "") throw invalid(`Field '${field}' must name a node`);
    return item;
  }
  if (!isObject(item)) throw invalid(`Field '${field}' must be a node name or an object {node, input}`);
  if (typeof item.node !== "string" || item.node === "") {
    throw invalid(`Field '${field}.node' must be a node name`);
  }
  // LangGraph only revives a checkpointed Send whose args are defined, so a missing input is null.
  return new Send(item.node, item.input ?? null);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
