// The official SDK's protocol client, `client.threads.stream()` (what RemoteGraph's streamEvents
// v3 and useStream ride on), as an application uses it: `run.start`, then `subscribe` to the
// channel it wants. A subscription made after `run.start` sees the run's events from the first
// (the thread's stream replays them), however fast the run was. WITH_REFERENCE_SERVER=1 runs the
// same against the JS reference server (@langchain/langgraph-api), where it holds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceForBench } from "../../bench/start-server.js";
import { startGantry } from "../support/gantry-process.js";
import { fixture } from "./fixture-paths.js";
import { sdkClient } from "./http.js";

const CONFIG = fixture("protocol-clients", "langgraph.json");
const COUNT = 500;

const SERVERS: Record<string, () => Promise<{ url: string; stop(): Promise<void> }>> = {
  "gantry dev": () => startGantry({ config: CONFIG }),
  ...(process.env.WITH_REFERENCE_SERVER === "1" ? { "the JS reference server": () => startReferenceForBench(CONFIG) } : {}),
};

for (const [name, start] of Object.entries(SERVERS)) {
  describe(`the SDK's ThreadStream on ${name}`, () => {
    let server: { url: string; stop(): Promise<void> };

    beforeAll(async () => {
      server = await start();
    });

    afterAll(async () => {
      await server?.stop();
    });

    it("delivers every custom event of a run that ended before the subscription's stream was open", async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const thread = sdkClient(server.url).threads.stream({ assistantId: "burst" });
        try {
          await thread.run.start({ input: { count: COUNT } });
          const subscription = await thread.subscribe({ channels: ["custom"] });
          const seen: number[] = [];
          for await (const event of subscription) {
            seen.push((event.params.data as { payload: { i: number } }).payload.i);
            if (seen.length === COUNT) break;
          }
          expect(seen, `attempt ${attempt + 1}`).toEqual(Array.from({ length: COUNT }, (_, i) => i));
        } finally {
          await thread.close();
        }
      }
    });
  });
}
