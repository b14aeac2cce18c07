// Protocol commands as they arrive (POST /threads/{id}/commands, or a WebSocket frame): the
// envelope `{id, method, params}` and the params of each method this server answers, checked with
// zod. A bad envelope has no id to answer to; bad params are answered as the protocol's
// `invalid_argument` error for that command, naming the field.
import type { Command, ErrorCode, ErrorResponse } from "@langchain/protocol";
import { z } from "zod";
import { formatPath, parseIgnoringUnknownKeys } from "../unknown-keys.js";

const Envelope = z.object({
  id: z.number().int().nonnegative(),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});

const record = z.record(z.string(), z.unknown());
const MULTITASK = ["reject", "interrupt", "rollback", "enqueue"] as const;
const Send = z.object({ node: z.string(), input: z.unknown() });
const Goto = z.union([z.string(), Send, z.array(z.union([z.string(), Send]))]);
const Update = z.union([record, z.array(z.tuple([z.string(), z.unknown()]))]);

export const RunStartParams = z.object({
  assistant_id: z.string().min(1, { message: "name the assistant (or graph id) to run" }),
  input: z.unknown().optional(),
  config: record.optional(),
  metadata: record.optional(),
  context: record.optional(),
  // The SDK sends both spellings.
  multitask_strategy: z.enum(MULTITASK).optional(),
  multitaskStrategy: z.enum(MULTITASK).optional(),
});

const Respond = z.object({ interrupt_id: z.string().min(1), response: z.unknown() });
export const InputRespondParams = z
  .object({
    // Interrupt ids are unique across namespaces, so the resume map needs no namespace.
    namespace: z.array(z.string()).optional(),
    interrupt_id: z.string().min(1).optional(),
    response: z.unknown().optional(),
    responses: z.array(Respond).min(1).optional(),
    update: Update.optional(),
    goto: Goto.optional(),
    config: record.optional(),
    metadata: record.optional(),
    strict_resume: z.boolean().optional(),
  })
  .refine((p) => p.interrupt_id !== undefined || p.responses !== undefined, {
    message: "give interrupt_id (with response) or responses",
    path: ["interrupt_id"],
  });

export const StateGetParams = z.object({ namespace: z.array(z.string()).optional(), keys: z.array(z.string()).optional() });
export const AgentGetTreeParams = z.object({ run_id: z.string().optional() });

/** The envelope, or the protocol error that answers it (id null: a bad envelope has no id to answer to). */
export function parseCommand(value: unknown): { command: Command } | { error: ErrorResponse } {
  const parsed = parseIgnoringUnknownKeys(Envelope, value);
  if (parsed.success) return { command: parsed.data as Command };
  return { error: errorResponse(null, "invalid_argument", describe(parsed.error, "command")) };
}

/** A command's params through its schema; on failure the message names the field. */
export function parseParams<S extends z.ZodType>(schema: S, command: Command): { params: z.output<S> } | { message: string } {
  const parsed = parseIgnoringUnknownKeys(schema, command.params ?? {});
  return parsed.success ? { params: parsed.data } : { message: `${command.method}: ${describe(parsed.error, "params")}` };
}

export function errorResponse(id: number | null, error: ErrorCode, message: string): ErrorResponse {
  return { type: "error", id, error, message };
}

function describe(error: z.ZodError, where: string): string {
  const issue = error.issues[0]!;
  const field = issue.path.length ? `'${where === "params" ? "params." : ""}${formatPath(issue.path)}'` : `the ${where}`;
  return `Field ${field} is invalid: ${issue.message}`;
}
