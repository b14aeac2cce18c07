// Schemas of a graph typed with TypeScript (Annotation.Root, no zod) through the SDK, against
// `gantry dev` on a project that reads like a user's: the JSON Schemas Studio draws its forms from,
// for the graph and its subgraphs, read from the types on first request and kept in the data dir.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client, GraphSchema } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningGantry, startGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { eventually, sdkClient } from "./http.js";

const CONFIG = fixture("typed-schemas", "langgraph.json");
// Reading the types of a project takes a few seconds on an idle machine, far more on a busy one.
const TYPES_READ_MS = 240_000;
const SLOW_TEST_MS = TYPES_READ_MS + 30_000;
// The first request waits for the types however long they take to read (typed-schema-source.ts).
const FIRST_ANSWER_MS = TYPES_READ_MS;

const propertiesOf = (schema: unknown) => (schema as { properties: Record<string, Record<string, unknown>> }).properties;
const isTyped = (schemas: GraphSchema) => propertiesOf(schemas.state_schema)?.tone?.type === "string";
// Polled once a second: the reading competes for the CPU with whatever asks for it.
const typedOrPause = async <T>(value: T, typed: boolean): Promise<T | undefined> => {
  if (typed) return value;
  await new Promise((wake) => setTimeout(wake, 1_000));
  return undefined;
};

describe("schemas of a TypeScript-typed graph through the SDK", () => {
  let dataDir: string;
  let server: RunningGantry;
  let client: Client;

  /** The support graph's schemas once they are typed (the reading runs in the background). */
  const typedSupportSchemas = () =>
    eventually(
      "typed schemas",
      async () => {
        const answer = await client.assistants.getSchemas("support");
        return typedOrPause(answer, isTyped(answer));
      },
      TYPES_READ_MS,
    );

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "gantry-typed-schemas-"));
    server = await startGantry({ config: CONFIG, dataDir });
    client = sdkClient(server.url);
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  // The reference's "assistants › schemas": on a server that has read no types yet, the first
  // request is answered typed (it waits for the reading, as the official server does), for a graph
  // exported as a promise of the compiled graph.
  it(
    "schemas: the first answer on a fresh data dir is typed, for a graph exported as a promise",
    async () => {
      const schemas = await client.assistants.getSchemas("drafting");
      expect(propertiesOf(schemas.state_schema)).toEqual({ lines: { type: "array", items: { type: "string" } }, topic: { type: "string" } });
      expect(propertiesOf(schemas.input_schema).topic).toEqual({ type: "string" });
    },
    FIRST_ANSWER_MS,
  );

  // The reference's "subgraphs › get subgraphs": subgraphs compiled where they become nodes, each
  // with its typed state under the JS reference's `state` key as well as the SDK's `state_schema`.
  it(
    "get subgraphs: each subgraph's typed state under `state` and `state_schema`",
    async () => {
      expect(Object.keys(await client.assistants.getSubgraphs("drafting"))).toEqual(["review"]);
      const subgraphs = await client.assistants.getSubgraphs("drafting", { recurse: true });
      expect(Object.keys(subgraphs)).toEqual(["review", "review|edit"]);
      expect(subgraphs).toMatchObject({
        review: { state: { type: "object", properties: { verdict: { type: "string", enum: ["accept", "revise"] }, lines: { type: "array" } } } },
        "review|edit": { state: { type: "object", properties: { pass: { type: "string", enum: ["copy", "style"] }, lines: { type: "array" } } } },
      });
      for (const described of Object.values(subgraphs) as Array<GraphSchema & { state: unknown; input: unknown; output: unknown; config: unknown }>) {
        expect(described.state).toEqual(described.state_schema);
        expect(described.input).toEqual(described.input_schema);
        expect(described.output).toEqual(described.output_schema);
        expect(described.config).toEqual(described.config_schema);
      }
    },
    FIRST_ANSWER_MS,
  );

  it(
    "describes input, state, output, config and context with the graph's own types",
    async () => {
      const schemas = await typedSupportSchemas();
      expect(schemas.graph_id).toBe("support");
      const input = propertiesOf(schemas.input_schema);
      expect(input.tone).toEqual({ type: "string", enum: ["formal", "friendly"] });
      expect(input.messages).toEqual({ type: "array", items: { $ref: "#/definitions/BaseMessage<MessageStructure<MessageToolSet>,MessageType>" } });
      expect(input.ticket).toMatchObject({
        type: "object",
        properties: { id: { type: "string" }, priority: { type: "string", enum: ["high", "low"] }, assignee: { type: "string" } },
        required: ["id", "priority"],
      });
      expect(Object.keys((schemas.input_schema as { definitions: object }).definitions)).toEqual([
        "BaseMessage<MessageStructure<MessageToolSet>,MessageType>",
        "RemoveMessage",
      ]);
      expect(Object.keys(propertiesOf(schemas.state_schema)).sort()).toEqual(["depth", "messages", "sources", "ticket", "tone", "turns"]);
      expect((schemas.output_schema as { required: string[] }).required.sort()).toEqual(["depth", "messages", "sources", "tone", "turns"]);
      expect(propertiesOf(schemas.config_schema)).toEqual({
        model: { type: "string", enum: ["claude-3-5-haiku", "gpt-4o-mini"] },
        systemPrompt: { type: "string" },
        maxSources: { type: "number" },
      });
      expect(schemas.context_schema).toEqual(schemas.config_schema);
    },
    SLOW_TEST_MS,
  );

  // Mirrors the reference suite's "assistants > schemas" (its schema-expectations.mts).
  it(
    "assistants > schemas: types a messages state as the reference's generator names LangChain's message classes",
    async () => {
      const schemas = await typedSupportSchemas();
      const baseMessage = "BaseMessage<MessageStructure<MessageToolSet>,MessageType>";
      expect(schemas.state_schema).toMatchObject({
        type: "object",
        properties: { messages: { type: "array", items: { $ref: `#/definitions/${baseMessage}` } } },
        definitions: {
          [baseMessage]: { description: expect.stringContaining("Base class for all types of messages"), oneOf: [{ $ref: "#/definitions/RemoveMessage" }] },
          RemoveMessage: { type: "object", properties: { content: expect.any(Object), type: { type: "string" } }, required: ["content"] },
        },
        $schema: "http://json-schema.org/draft-07/schema#",
      });
    },
    SLOW_TEST_MS,
  );

  it(
    "lists the subgraphs with recurse, each with the state of its own type",
    async () => {
      await eventually("typed schemas", async () => typedOrPause(true, isTyped(await client.assistants.getSchemas("support"))), TYPES_READ_MS);
      const subgraphs = await client.assistants.getSubgraphs("support", { recurse: true });
      expect(Object.keys(subgraphs).sort()).toEqual(["research", "research|search"]);
      expect(propertiesOf(subgraphs.research!.state_schema).depth).toEqual({ type: "string", enum: ["deep", "shallow"] });
      expect(Object.keys(propertiesOf(subgraphs.research!.state_schema)).sort()).toEqual(["depth", "messages", "queries", "sources"]);
      expect(propertiesOf(subgraphs["research|search"]!.input_schema)).toEqual({
        queries: { type: "array", items: { type: "string" } },
        sources: { type: "array", items: { type: "string" } },
      });
      const direct = await client.assistants.getSubgraphs("support");
      expect(Object.keys(direct)).toEqual(["research"]);
      const nested = await client.assistants.getSubgraphs("support", { namespace: "research|search", recurse: true });
      expect(Object.keys(nested)).toEqual(["research|search"]);
      expect(nested["research|search"]).toEqual(subgraphs["research|search"]);
    },
    SLOW_TEST_MS,
  );

  it("runs the graph, subgraphs and all, with input shaped by those schemas", async () => {
    const values = (await client.runs.wait(null, "support", {
      input: { messages: [{ type: "human", content: "My order is late" }], tone: "formal", depth: "deep" },
      config: { configurable: { model: "gpt-4o-mini", systemPrompt: "Be brief." } },
    })) as { messages: Array<{ content: string }>; sources: string[]; turns: number };
    expect(values.sources).toHaveLength(2);
    expect(values.turns).toBe(1);
    expect(values.messages.at(-1)?.content).toBe("Dear customer, see 2 sources.");
  });

  it(
    "answers typed schemas on the first request after a restart on the same data dir",
    async () => {
      await eventually("typed schemas", async () => typedOrPause(true, isTyped(await client.assistants.getSchemas("support"))), TYPES_READ_MS);
      await server.stop();
      server = await startGantry({ config: CONFIG, dataDir });
      client = sdkClient(server.url);
      expect(isTyped(await client.assistants.getSchemas("support"))).toBe(true);
      expect(Object.keys(await client.assistants.getSubgraphs("support", { recurse: true })).sort()).toEqual(["research", "research|search"]);
    },
    SLOW_TEST_MS,
  );
});
