// The protocol (v2) under custom auth: the same handlers and filters as the classic routes
// (run.start is threads:create_run, reads are threads:read), refusals with the classic statuses.
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "./backends.js";
import { fixture } from "./fixture-paths.js";
import { useGantry } from "./fixture.js";
import { request } from "./http.js";
import { collectRun, lifecycleOf, readEvents } from "./protocol-support.js";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const clientFor = (url: string, token: string) => new Client({ apiUrl: url, defaultHeaders: bearer(token), callerOptions: { maxRetries: 0 } });

describe("protocol v2 under custom auth", () => {
  const gantry = useGantry(openSqliteStore, fixture("protocol", "langgraph.auth.json"));

  it("runs for its owner, hides the thread from others, and refuses as the classic routes do", async () => {
    const url = gantry.server.url;
    const alice = clientFor(url, "token-alice").threads.stream({ assistantId: "chain" });
    const events = await collectRun(alice, () => alice.run.start({ input: { text: "hi" } }));
    await alice.close();
    expect(lifecycleOf(events)).toEqual(["running", "completed"]);
    const threadId = alice.threadId;
    expect((await clientFor(url, "token-alice").threads.get(threadId)).metadata).toMatchObject({ owner: "alice" });

    // bob cannot read alice's thread, over the protocol or the classic API.
    const stateCommand = { id: 1, method: "state.get", params: { namespace: [] } };
    const bobState = await request(url, "POST", `/threads/${threadId}/commands`, { body: stateCommand, headers: bearer("token-bob") });
    const bobClassic = await request(url, "GET", `/threads/${threadId}/state`, { headers: bearer("token-bob") });
    expect(bobClassic.status).toBe(404);
    expect(bobState.status).toBe(404);
    expect(bobState.json).toMatchObject({ type: "error", id: 1 });
    const bobStream = await fetch(`${url}/threads/${threadId}/stream/events`, {
      method: "POST",
      headers: { ...bearer("token-bob"), "content-type": "application/json" },
      body: JSON.stringify({ channels: ["values"] }),
    });
    expect(bobStream.status).toBe(404);
    await bobStream.body?.cancel();
    const anonymousStream = await readEvents(url, threadId, { channels: ["lifecycle"] }, (got) => got.length >= 2, 5_000);
    expect(anonymousStream.status).toBe(401);

    // Without a token, and for mallory whom threads:create_run refuses: the classic statuses.
    const anonymous = await request(url, "POST", `/threads/${threadId}/commands`, { body: stateCommand });
    expect(anonymous.status).toBe(401);
    const fresh = randomUUID();
    const runStart = { id: 2, method: "run.start", params: { assistant_id: "chain", input: { text: "x" } } };
    const malloryProtocol = await request(url, "POST", `/threads/${fresh}/commands`, { body: runStart, headers: bearer("token-mallory") });
    const malloryClassic = await request(url, "POST", `/threads/${fresh}/runs`, {
      body: { assistant_id: "chain", input: { text: "x" }, if_not_exists: "create" },
      headers: bearer("token-mallory"),
    });
    expect(malloryClassic.status).toBe(403);
    expect(malloryProtocol.status).toBe(403);
    expect(malloryProtocol.json).toMatchObject({ type: "error", id: 2, error: "permission_denied" });
  });
});
