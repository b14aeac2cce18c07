// The subgraph, dynamic graph, lifecycle and strict resume e2e cases on PostgreSQL: a fresh schema,
// reached through DATABASE_URL alone. Skipped with the reason when PostgreSQL is down; failing in CI.
import { describeWithPostgres } from "../support/postgres.js";
import { openPostgresStore } from "./backends.js";
import { describeSubgraphsE2E } from "./subgraphs.cases.js";

await describeWithPostgres("subgraphs end to end on PostgreSQL", () => {
  describeSubgraphsE2E("postgres", openPostgresStore);
});
