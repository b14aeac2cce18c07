// The extractor on real fixture projects, with their own @langchain/langgraph types: slow (one
// TypeScript program), so one extraction serves every case.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type Extraction, extractTypedSchemas, type TypedSchemas } from "./extract.js";

const FIXTURES = resolve(fileURLToPath(new URL("../../../test/fixtures", import.meta.url)));
const SUPPORT = resolve(FIXTURES, "typed-schemas/src/support.ts");
const ANNOTATED = resolve(FIXTURES, "graphs/src/annotated.ts");
const DRAFTING = resolve(FIXTURES, "typed-schemas/src/drafting.ts");

describe("schemas read from a graph's TypeScript types", () => {
  let extraction: Extraction;
  const namespacesOf = (graphId: string): Record<string, TypedSchemas> => {
    const graph = extraction.graphs[graphId];
    if (!graph || !("namespaces" in graph)) throw new Error(`no schemas for ${graphId}: ${JSON.stringify(graph)}`);
    return graph.namespaces;
  };
  const propertiesOf = (schema: unknown) => (schema as { properties: Record<string, unknown> }).properties;

  beforeAll(() => {
    extraction = extractTypedSchemas([
      { graphId: "support", file: SUPPORT, exportName: "graph" },
      { graphId: "annotated", file: ANNOTATED, exportName: "graph" },
      { graphId: "drafting", file: DRAFTING, exportName: "graph" },
      { graphId: "missing", file: ANNOTATED, exportName: "nothingHere" },
    ]);
  }, 300_000);

  it("types an Annotation.Root state: literal unions as enums, optional fields, messages", () => {
    const state = namespacesOf("support")[""]!.state!;
    expect(propertiesOf(state)).toEqual({
      messages: { type: "array", items: { $ref: "#/definitions/BaseMessage<MessageStructure<MessageToolSet>,MessageType>" } },
      tone: { type: "string", enum: ["formal", "friendly"] },
      depth: { type: "string", enum: ["deep", "shallow"] },
      ticket: {
        type: "object",
        properties: {
          id: { type: "string" },
          priority: { type: "string", enum: ["high", "low"] },
          assignee: { description: "Absent until someone picks the ticket up.", type: "string" },
        },
        required: ["id", "priority"],
      },
      sources: { type: "array", items: { type: "string" } },
      turns: { type: "number" },
    });
    // An update: a client may send any channel, so none is required.
    expect(state.required).toBeUndefined();
    // As the official server's generator names and shapes LangChain's abstract message class.
    expect(state.definitions).toEqual({
      "BaseMessage<MessageStructure<MessageToolSet>,MessageType>": {
        description: expect.stringContaining("Base class for all types of messages"),
        oneOf: [{ $ref: "#/definitions/RemoveMessage" }],
      },
      RemoveMessage: expect.objectContaining({ type: "object", required: ["content"] }),
    });
  });

  it("requires in the output what the state always holds", () => {
    const output = namespacesOf("support")[""]!.output!;
    expect((output.required as string[]).sort()).toEqual(["depth", "messages", "sources", "tone", "turns"]);
  });

  it("reads the config schema given to the StateGraph as optional fields", () => {
    expect(namespacesOf("support")[""]!.config).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        model: { type: "string", enum: ["claude-3-5-haiku", "gpt-4o-mini"] },
        systemPrompt: { type: "string" },
        maxSources: { type: "number" },
      },
    });
  });

  it("reads subgraphs under their run-time namespaces, also one declared unexported in another file", () => {
    const namespaces = namespacesOf("support");
    expect(Object.keys(namespaces).sort()).toEqual(["", "research", "research|search"]);
    expect(Object.keys(propertiesOf(namespaces.research!.state)).sort()).toEqual(["depth", "messages", "queries", "sources"]);
    expect(Object.keys(propertiesOf(namespaces["research|search"]!.input)).sort()).toEqual(["queries", "sources"]);
    expect(namespaces.research!.config).toBeNull();
  });

  it("reads a graph exported as a promise, and subgraphs compiled where they become nodes", () => {
    const namespaces = namespacesOf("drafting");
    expect(Object.keys(namespaces).sort()).toEqual(["", "review", "review|edit"]);
    expect(propertiesOf(namespaces[""]!.state)).toEqual({ lines: { type: "array", items: { type: "string" } }, topic: { type: "string" } });
    expect(propertiesOf(namespaces.review!.state).verdict).toEqual({ type: "string", enum: ["accept", "revise"] });
    expect(propertiesOf(namespaces["review|edit"]!.state).pass).toEqual({ type: "string", enum: ["copy", "style"] });
  });

  it("keeps separate input and output annotations apart from the state", () => {
    const root = namespacesOf("annotated")[""]!;
    expect(propertiesOf(root.input)).toEqual({ question: { type: "string" } });
    expect(propertiesOf(root.output)).toEqual({ answer: { type: "string" } });
    expect(Object.keys(propertiesOf(root.state)).sort()).toEqual(["answer", "notes", "question"]);
  });

  it("reports a graph it cannot read without failing the others", () => {
    expect(extraction.graphs.missing).toEqual({ error: `${ANNOTATED} has no export named 'nothingHere'` });
  });

  it("lists the project files it read, with their content hashes", () => {
    expect(Object.keys(extraction.files)).toEqual(expect.arrayContaining([SUPPORT, ANNOTATED, resolve(FIXTURES, "typed-schemas/src/research.ts")]));
    expect(extraction.files[SUPPORT]).toMatch(/^[0-9a-f]{64}$/);
  });
});
