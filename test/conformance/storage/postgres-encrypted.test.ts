// The storage conformance suite on PostgreSQL seen through encryption at rest (encrypted.ts): a
// fresh schema per storage, dropped on close.
import { openPostgresStorage, type PostgresStorage } from "../../../src/storage/postgres/open-postgres.js";
import { describeWithPostgres, freshSchemaName, TEST_DATABASE_URL } from "../../support/postgres.js";
import { encrypted, SEALED_SEARCH_SKIPS } from "./encrypted.js";
import { describeStorageConformance, openBoth } from "./harness.js";

const openAt = async (schema: string) => encrypted(await openPostgresStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4 }));

await describeWithPostgres("postgres, encrypted", () =>
  describeStorageConformance<PostgresStorage>("postgres, encrypted", {
    open: () => openAt(freshSchemaName()),
    reopen: (storage) => openAt(storage.schema!),
    openTwiceAtOnce: () => {
      const schema = freshSchemaName();
      return openBoth(() => openAt(schema));
    },
    close: (storage) => storage.dropSchemaAndClose(),
    skip: SEALED_SEARCH_SKIPS,
  }),
);
