// Request bodies and queries of the assistants routes (spec §1.1), and the record shape for /openapi.json.
import { z } from "zod";
import { limit, offset, ifExists, jsonFilter, jsonObject, optional, positiveInt32, sortOrder } from "./common.js";
import { queryBool } from "../validation.js";

export const ASSISTANT_FIELDS = [
  "assistant_id",
  "graph_id",
  "config",
  "context",
  "metadata",
  "version",
  "name",
  "description",
  "created_at",
  "updated_at",
] as const;

const assistantConfig = z
  .object({
    tags: optional(z.array(z.string())),
    recursion_limit: optional(positiveInt32),
    configurable: optional(jsonObject),
  })
  .catchall(z.unknown());

export const AssistantCreateBody = z
  .object({
    graph_id: z.string().min(1),
    assistant_id: optional(z.string()),
    config: optional(assistantConfig),
    context: optional(jsonObject),
    metadata: optional(jsonObject),
    if_exists: optional(ifExists),
    name: optional(z.string()),
    description: optional(z.string()),
  })
  .strict();

export const AssistantPatchBody = z
  .object({
    graph_id: optional(z.string().min(1)),
    config: optional(assistantConfig),
    context: optional(jsonObject),
    metadata: optional(jsonObject),
    name: optional(z.string()),
    description: optional(z.string()),
  })
  .strict();

const filterFields = {
  metadata: optional(jsonFilter),
  graph_id: optional(z.string()),
  name: optional(z.string()),
};

export const AssistantSearchBody = z
  .object({
    ...filterFields,
    limit: optional(limit),
    offset: optional(offset),
    sort_by: optional(z.enum(["assistant_id", "graph_id", "name", "created_at", "updated_at"])),
    sort_order: optional(sortOrder),
    select: optional(z.array(z.enum(ASSISTANT_FIELDS)).min(1)),
  })
  .strict();

export const AssistantCountBody = z.object(filterFields).strict();

export const AssistantVersionsBody = z
  .object({
    metadata: optional(jsonFilter),
    limit: optional(limit),
    offset: optional(offset),
  })
  .strict();

export const SetLatestBody = z.object({ version: optional(positiveInt32) }).strict();
export const SetLatestQuery = z.object({ version: optional(z.coerce.number().pipe(positiveInt32)) }).strict();

export const DeleteAssistantQuery = z.object({ delete_threads: optional(queryBool) }).strict();

export const GraphQuery = z
  .object({
    xray: optional(
      z
        .string()
        .transform((s) => s.toLowerCase())
        .pipe(
          // A number is a depth (the JS SDK sends xray: 1 as "1"); 0 draws no subgraphs.
          z.union(
            [
              z.enum(["true", "false"]).transform((s) => s === "true"),
              z
                .string()
                .regex(/^\d+$/)
                .transform((s) => (Number(s) === 0 ? false : Number(s))),
            ],
            { error: "must be true, false or a non-negative integer (the subgraph depth)" },
          ),
        ),
    ),
  })
  .strict();

export const SubgraphsQuery = z.object({ recurse: optional(queryBool) }).strict();

export const AssistantRecord = z.object({
  assistant_id: z.uuid(),
  graph_id: z.string(),
  config: jsonObject,
  context: jsonObject,
  metadata: jsonObject,
  version: z.int(),
  name: z.string(),
  description: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
