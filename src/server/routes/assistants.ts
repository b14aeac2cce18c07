// /assistants routes (spec §1.1): parse, call the assistant service, shape the answer.
import type { Access } from "../../domain/access.js";
import type { AssistantService } from "../../domain/assistants.js";
import type { GraphRegistry } from "../../runtime/graph-registry.js";
import { describeGraphSchemas, describeSubgraphs, drawGraph } from "../../runtime/graph-info.js";
import type { JsonObject } from "../../domain/records.js";
import type { TypedSchemaSource } from "../../runtime/typed-schemas/typed-schema-source.js";
import { GantryError } from "../../errors.js";
import { project, setPaginationHeaders } from "../paging.js";
import { accessOf } from "../app-env.js";
import { route, type RouteSpec } from "../route.js";
import {
  AssistantCountBody,
  AssistantCreateBody,
  AssistantPatchBody,
  AssistantSearchBody,
  AssistantVersionsBody,
  DeleteAssistantQuery,
  GraphQuery,
  SetLatestBody,
  SetLatestQuery,
  SubgraphsQuery,
} from "../schemas/assistants.js";

const TAG = "Assistants";

export function assistantRoutes({
  assistants,
  graphs,
  typedSchemas,
}: {
  assistants: AssistantService;
  graphs: GraphRegistry;
  /** Schemas read from TypeScript types, for graphs whose state has no runtime schema. */
  typedSchemas?: TypedSchemaSource;
}): RouteSpec[] {
  const typedLookup = (graphId: string) => (typedSchemas ? () => typedSchemas.get(graphId) : undefined);
  const compiledGraphOf = async (idOrGraphId: string, access: Access | undefined) => {
    const assistant = await assistants.get(idOrGraphId, access);
    return {
      assistant,
      graph: await graphs.get(assistant.graph_id).resolve({ configurable: assistant.config.configurable as JsonObject | undefined, ...assistant.config }),
    };
  };

  return [
    route({
      method: "post",
      path: "/assistants",
      tag: TAG,
      summary: "Create an assistant for a graph",
      body: AssistantCreateBody,
      responses: { 200: "The assistant", 404: "Unknown graph", 409: "The assistant exists and if_exists is raise", 422: "Invalid body" },
      returns: "Assistant",
      handler: async (c, { body }) => c.json(await assistants.create(body as Parameters<AssistantService["create"]>[0], accessOf(c))),
    }),
    route({
      method: "post",
      path: "/assistants/search",
      tag: TAG,
      summary: "Search assistants by metadata, graph and name",
      body: AssistantSearchBody,
      bodyOptional: true,
      responses: { 200: "Matching assistants, with X-Pagination-Total and X-Pagination-Next", 422: "Invalid body" },
      returns: "AssistantList",
      handler: async (c, { body }) => {
        const page = { limit: body.limit ?? 10, offset: body.offset ?? 0 };
        const result = await assistants.search(filterOf(body), { by: body.sort_by ?? "created_at", order: body.sort_order ?? "desc" }, page, accessOf(c));
        setPaginationHeaders(c, page, result);
        return c.json(result.items.map((a) => project(a, body.select)));
      },
    }),
    route({
      method: "post",
      path: "/assistants/count",
      tag: TAG,
      summary: "Count assistants matching a filter",
      body: AssistantCountBody,
      bodyOptional: true,
      responses: { 200: "The number of matching assistants", 422: "Invalid body" },
      handler: async (c, { body }) => c.json(await assistants.count(filterOf(body), accessOf(c))),
    }),
    route({
      method: "get",
      path: "/assistants/:assistant_id",
      tag: TAG,
      summary: "Get an assistant",
      responses: { 200: "The assistant", 404: "Not found", 422: "Invalid id" },
      returns: "Assistant",
      handler: async (c) => c.json(await assistants.get(c.req.param("assistant_id")!, accessOf(c))),
    }),
    route({
      method: "patch",
      path: "/assistants/:assistant_id",
      tag: TAG,
      summary: "Update an assistant, creating a new version",
      body: AssistantPatchBody,
      bodyOptional: true,
      responses: { 200: "The assistant at its new version", 404: "Not found", 422: "Invalid body or id" },
      returns: "Assistant",
      handler: async (c, { body }) => c.json(await assistants.update(c.req.param("assistant_id")!, body as JsonObject, accessOf(c))),
    }),
    route({
      method: "delete",
      path: "/assistants/:assistant_id",
      tag: TAG,
      summary: "Delete an assistant (and, with delete_threads, its threads)",
      query: DeleteAssistantQuery,
      responses: { 204: "Deleted", 404: "Not found", 422: "Invalid id or query" },
      handler: async (c, { query }) => {
        await assistants.delete(c.req.param("assistant_id")!, { deleteThreads: query.delete_threads ?? false }, accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "post",
      path: "/assistants/:assistant_id/versions",
      tag: TAG,
      summary: "List an assistant's versions, newest first",
      body: AssistantVersionsBody,
      bodyOptional: true,
      responses: { 200: "Versions", 404: "Not found", 422: "Invalid body or id" },
      handler: async (c, { body }) =>
        c.json(
          await assistants.versions(
            c.req.param("assistant_id")!,
            body.metadata ? { metadata: body.metadata as JsonObject } : {},
            { limit: body.limit ?? 10, offset: body.offset ?? 0 },
            accessOf(c),
          ),
        ),
    }),
    route({
      method: "post",
      path: "/assistants/:assistant_id/latest",
      tag: TAG,
      summary: "Make an earlier version the current one",
      body: SetLatestBody,
      bodyOptional: true,
      query: SetLatestQuery,
      responses: { 200: "The assistant at that version", 404: "Assistant or version not found", 422: "Missing or invalid version" },
      returns: "Assistant",
      handler: async (c, { body, query }) => {
        const version = body.version ?? query.version;
        if (version === undefined) throw new GantryError("invalid", "Field 'version' is required (in the body, or as a query parameter)");
        return c.json(await assistants.setLatest(c.req.param("assistant_id")!, version, accessOf(c)));
      },
    }),
    route({
      method: "get",
      path: "/assistants/:assistant_id/graph",
      tag: TAG,
      summary: "The assistant's graph as nodes and edges",
      query: GraphQuery,
      responses: { 200: "Drawable graph", 404: "Not found", 422: "Invalid id or xray" },
      handler: async (c, { query }) => {
        const { graph } = await compiledGraphOf(c.req.param("assistant_id")!, accessOf(c));
        return c.json(await drawGraph(graph, query.xray ?? false));
      },
    }),
    route({
      method: "get",
      path: "/assistants/:assistant_id/schemas",
      tag: TAG,
      summary: "JSON Schemas of the graph's input, output, state, config and context",
      responses: { 200: "Graph schemas", 404: "Not found", 422: "Invalid id" },
      handler: async (c) => {
        const { assistant, graph } = await compiledGraphOf(c.req.param("assistant_id")!, accessOf(c));
        return c.json(await describeGraphSchemas(assistant.graph_id, graph, typedLookup(assistant.graph_id)));
      },
    }),
    route({
      method: "get",
      path: "/assistants/:assistant_id/subgraphs",
      tag: TAG,
      summary: "Schemas of the graph's subgraphs by namespace",
      query: SubgraphsQuery,
      responses: { 200: "Subgraph schemas", 404: "Not found", 422: "Invalid id" },
      handler: async (c, { query }) => {
        const { assistant, graph } = await compiledGraphOf(c.req.param("assistant_id")!, accessOf(c));
        return c.json(await describeSubgraphs(graph, { recurse: query.recurse ?? false }, typedLookup(assistant.graph_id)));
      },
    }),
    route({
      method: "get",
      path: "/assistants/:assistant_id/subgraphs/:namespace",
      tag: TAG,
      summary: "Schemas of one subgraph namespace",
      query: SubgraphsQuery,
      responses: { 200: "Subgraph schemas", 404: "Not found", 422: "Invalid id" },
      handler: async (c, { query }) => {
        const { assistant, graph } = await compiledGraphOf(c.req.param("assistant_id")!, accessOf(c));
        const options = { namespace: c.req.param("namespace")!, recurse: query.recurse ?? false };
        return c.json(await describeSubgraphs(graph, options, typedLookup(assistant.graph_id)));
      },
    }),
  ];
}

function filterOf(body: { metadata?: Record<string, unknown>; graph_id?: string; name?: string }) {
  return {
    ...(body.metadata ? { metadata: body.metadata as JsonObject } : {}),
    ...(body.graph_id !== undefined ? { graph_id: body.graph_id } : {}),
    ...(body.name !== undefined ? { name: body.name } : {}),
  };
}
