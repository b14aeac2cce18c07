// Runs the storage conformance suite on PostgreSQL: a fresh schema per storage, dropped on close.
import { openPostgresStorage, type PostgresStorage } from "../../../src/storage/postgres/open-postgres.js";
import { describeWithPostgres, freshSchemaName, TEST_DATABASE_URL } from "../../support/postgres.js";
import { describeStorageConformance, openBoth } from "./harness.js";

const openAt = (schema: string) => openPostgresStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4 });

await describeWithPostgres("postgres", () =>
  describeStorageConformance<PostgresStorage>("postgres", {
    open: () => openAt(freshSchemaName()),
    reopen: (storage) => openAt(storage.schema!),
    openTwiceAtOnce: () => {
      const schema = freshSchemaName();
      return openBoth(() => openAt(schema));
    },
    close: (storage) => storage.dropSchemaAndClose(),
    skip: [],
  }),
);
