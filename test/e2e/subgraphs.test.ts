// The subgraph, dynamic graph, lifecycle and strict resume e2e cases on the embedded SQLite default.
import { openSqliteStore } from "./backends.js";
import { describeSubgraphsE2E } from "./subgraphs.cases.js";

describeSubgraphsE2E("sqlite", openSqliteStore);
