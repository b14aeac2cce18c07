// /store routes (spec §1.6): items by namespace and key, search, and namespace listing. Responses
// take the shapes the SDKs read: an item or JSON null, `{items}`, `{namespaces}`.
import type { StoreService } from "../../domain/store.js";
import type { JsonObject } from "../../domain/records.js";
import { accessOf } from "../app-env.js";
import { route, type RouteSpec } from "../route.js";
import { NamespaceListBody, StoreDeleteBody, StoreGetQuery, StorePutBody, StoreSearchBody } from "../schemas/store.js";

const TAG = "Store";

export function storeRoutes({ store }: { store: StoreService }): RouteSpec[] {
  return [
    route({
      method: "put",
      path: "/store/items",
      tag: TAG,
      summary: "Store or replace an item (ttl in minutes; index: false, field paths, or the configured fields)",
      body: StorePutBody,
      responses: { 204: "Stored", 422: "Invalid body or namespace" },
      handler: async (c, { body }) => {
        await store.put({ ...body, value: body.value as JsonObject }, accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "get",
      path: "/store/items",
      tag: TAG,
      summary: "Get an item; the namespace is its labels joined with '.', or one label per repeated key",
      query: StoreGetQuery,
      responses: { 200: "The item, or null when there is none", 422: "Invalid namespace or key" },
      handler: async (c, { query }) => {
        // Labels cannot contain ".", so splitting every value covers the JS SDK's joined string,
        // Python's, and the OpenAPI document's repeated keys alike.
        const namespace = (c.req.queries("namespace") ?? []).flatMap((value) => value.split("."));
        const item = await store.get(namespace, query.key, query.refresh_ttl === undefined ? {} : { refreshTtl: query.refresh_ttl }, accessOf(c));
        return c.json(item);
      },
    }),
    route({
      method: "delete",
      path: "/store/items",
      tag: TAG,
      summary: "Delete an item (deleting a missing item also succeeds)",
      body: StoreDeleteBody,
      responses: { 204: "Deleted", 422: "Invalid body or namespace" },
      handler: async (c, { body }) => {
        await store.delete(body.namespace, body.key, accessOf(c));
        return c.body(null, 204);
      },
    }),
    route({
      method: "post",
      path: "/store/items/search",
      tag: TAG,
      summary: "Search items under a namespace prefix, by value filter, or by similarity to a query when an index is configured",
      body: StoreSearchBody,
      bodyOptional: true,
      responses: { 200: "{items}: newest update first, or best match first for a query", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const items = await store.search(
          {
            namespacePrefix: body.namespace_prefix ?? [],
            ...(body.filter ? { filter: body.filter as JsonObject } : {}),
            ...(body.limit !== undefined ? { limit: body.limit } : {}),
            ...(body.offset !== undefined ? { offset: body.offset } : {}),
            ...(body.query !== undefined ? { query: body.query } : {}),
            ...(body.refresh_ttl !== undefined ? { refreshTtl: body.refresh_ttl } : {}),
          },
          accessOf(c),
        );
        return c.json({ items });
      },
    }),
    route({
      method: "post",
      path: "/store/namespaces",
      tag: TAG,
      summary: "List namespaces by prefix and suffix ('*' matches one label), cut to max_depth",
      body: NamespaceListBody,
      bodyOptional: true,
      responses: { 200: "{namespaces}: in label order", 422: "Invalid body" },
      handler: async (c, { body }) => {
        const namespaces = await store.listNamespaces(
          {
            ...(body.prefix ? { prefix: body.prefix } : {}),
            ...(body.suffix ? { suffix: body.suffix } : {}),
            ...(body.max_depth !== undefined ? { maxDepth: body.max_depth } : {}),
            ...(body.limit !== undefined ? { limit: body.limit } : {}),
            ...(body.offset !== undefined ? { offset: body.offset } : {}),
          },
          accessOf(c),
        );
        return c.json({ namespaces });
      },
    }),
  ];
}
