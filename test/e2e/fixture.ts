// One Gantry for a suite of e2e cases: a fresh store on the suite's backend, a server started on
// it with the suite's langgraph.json and environment, and an SDK client for that server. Stopped
// and removed after the suite. Call it in a describe block; read the fields inside tests and hooks.
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll } from "vitest";
import type { RunningGantry } from "../support/gantry-process.js";
import type { GantryStore, OpenStore } from "./backends.js";
import { sdkClient } from "./http.js";

export interface SuiteGantry {
  readonly store: GantryStore;
  readonly server: RunningGantry;
  readonly client: Client;
}

export function useGantry(open: OpenStore, config: string, env?: Record<string, string>): SuiteGantry {
  let store: GantryStore | undefined;
  let server: RunningGantry | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    store = await open();
    server = await store.start(config, env);
    client = sdkClient(server.url);
  });

  afterAll(async () => {
    await server?.stop();
    await store?.dispose();
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("The suite's Gantry was read before its beforeAll hook started it");
    return value;
  };
  return {
    get store() {
      return started(store);
    },
    get server() {
      return started(server);
    },
    get client() {
      return started(client);
    },
  };
}
