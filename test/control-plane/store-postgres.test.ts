import { afterAll, beforeAll } from "vitest";
import { openPostgresControlPlaneStore, type PostgresControlPlaneStore } from "../../src/control-plane/storage/postgres/store.js";
import { TEST_DATABASE_URL, describeWithPostgres, freshSchemaName } from "../support/postgres.js";
import { storeCases } from "./store.cases.js";

await describeWithPostgres("control-plane store on PostgreSQL", () => {
  let store: PostgresControlPlaneStore;
  beforeAll(async () => {
    store = await openPostgresControlPlaneStore(TEST_DATABASE_URL, freshSchemaName());
  });
  afterAll(async () => {
    await store?.dropSchemaAndClose();
  });
  storeCases(() => store);
});
