// `useStream` of @langchain/react 1.1.0 (its own @langchain/langgraph-sdk 1.11.0) in a real
// headless Chromium, on a page built by Vite and served from its own origin, against a real server:
// it sends a message, renders the fake model's streamed answer, shows the interrupt, resumes it and
// renders the reply, against `gantry dev`. WITH_REFERENCE_SERVER=1 runs the same page against the JS
// reference server too (@langchain/langgraph-api, what `langgraphjs dev` runs), which shows the
// test itself is right.
// useStream speaks protocol v2 only: commands over `POST /threads/{id}/commands` and events over
// `POST /threads/{id}/stream/events` (SSE), or both over the WebSocket at the same path.
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startReferenceForBench } from "../../bench/start-server.js";
import { fixture } from "../e2e/fixture-paths.js";
import { sdkClient } from "../e2e/http.js";
import { ANSWER, QUESTION } from "../fixtures/protocol-clients/src/chat.js";
import { describeWithChromium, launchBrowser, type Browser } from "../support/browser.js";
import { startGantry } from "../support/gantry-process.js";
import { buildAndServePage, type ServedPage } from "../support/static-page.js";

const CONFIG = fixture("protocol-clients", "langgraph.json");
const SHOWN_WITHIN_MS = 20_000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

type Transport = "sse" | "websocket";

interface Server {
  url: string;
  stop(): Promise<void>;
}

const SERVERS: Record<string, () => Promise<Server>> = {
  "gantry dev": () => startGantry({ config: CONFIG }),
  ...(process.env.WITH_REFERENCE_SERVER === "1" ? { "the JS reference server": () => startReferenceForBench(CONFIG) } : {}),
};

/** What the page did on the wire: HTTP calls as `METHOD /path`, and the protocol command each one or each WebSocket frame carried. */
function recordWire(page: Page, apiUrl: string): { calls: string[]; threadIds: Set<string> } {
  const calls: string[] = [];
  const threadIds = new Set<string>();
  const path = (url: string) =>
    new URL(url).pathname.replace(UUID, (id) => {
      threadIds.add(id);
      return "{id}";
    });
  page.on("request", (request) => {
    if (!request.url().startsWith(apiUrl) || request.method() === "OPTIONS") return;
    calls.push(`${request.method()} ${path(request.url())}`);
    if (request.url().endsWith("/commands")) calls.push(`command ${(request.postDataJSON() as { method: string }).method}`);
  });
  page.on("websocket", (socket) => {
    if (!socket.url().replace(/^ws/, "http").startsWith(apiUrl)) return;
    calls.push(`WS ${path(socket.url().replace(/^ws/, "http"))}`);
    socket.on("framesent", ({ payload }) => {
      const method = (JSON.parse(String(payload)) as { method?: string }).method;
      if (method) calls.push(`command ${method}`);
    });
  });
  return { calls, threadIds };
}

for (const [serverName, start] of Object.entries(SERVERS)) {
  describeWithChromium(`useStream (@langchain/react) on ${serverName}`, () => {
    let server: Server;
    let served: ServedPage;
    let browser: Browser;

    beforeAll(async () => {
      [server, served, browser] = await Promise.all([start(), buildAndServePage(fixture("use-stream-page")), launchBrowser()]);
    });

    afterAll(async () => {
      await browser?.close();
      await served?.close();
      await server?.stop();
    });

    async function chat(transport: Transport): Promise<{ calls: string[]; threadId: string }> {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(SHOWN_WITHIN_MS);
      const wire = recordWire(page, server.url);
      const calls = wire.calls;
      // A wait that times out says what the page showed as an error and what it had called.
      const shown = async (locator: Locator, state: "visible" | "detached" = "visible") => {
        try {
          await locator.waitFor({ state });
        } catch (error) {
          const alerts = await page.getByRole("alert").allTextContents();
          throw new Error(`${(error as Error).message.split("\n")[0]}\npage errors: ${alerts.join(" | ") || "none"}\ncalls: ${calls.join(", ")}`);
        }
      };
      try {
        await page.goto(`${served.url}?api=${encodeURIComponent(server.url)}&transport=${transport}`);
        await page.getByRole("textbox", { name: "Message" }).fill("Tell me about otters");
        await page.getByRole("button", { name: "Send" }).click();

        const messages = page.getByRole("list", { name: "Messages" }).locator("li");
        await shown(messages.filter({ hasText: ANSWER }));
        await shown(page.getByLabel("Interrupt").filter({ hasText: QUESTION }));
        await shown(page.getByLabel("Status").filter({ hasText: "idle" }));
        expect(await messages.evaluateAll((items) => items.map((li) => [li.getAttribute("data-type"), li.textContent]))).toEqual([
          ["human", "Tell me about otters"],
          ["ai", ANSWER],
        ]);

        await page.getByRole("button", { name: "Approve" }).click();
        await shown(messages.filter({ hasText: "Reviewed: approved" }));
        await shown(page.getByLabel("Interrupt"), "detached");
        await shown(page.getByLabel("Status").filter({ hasText: "idle" }));
        expect(await messages.allTextContents()).toEqual(["Tell me about otters", ANSWER, "Reviewed: approved"]);
        expect(await page.getByRole("alert").count()).toBe(0);

        expect(wire.threadIds.size, `threads the page named: ${[...wire.threadIds].join(", ")}`).toBe(1);
        return { calls, threadId: [...wire.threadIds][0]! };
      } finally {
        await page.close();
      }
    }

    it("streams the answer over SSE, shows the interrupt, resumes it and renders the reply", async () => {
      const { calls, threadId } = await chat("sse");
      // No thread creation, no /runs: the client names the thread and `run.start` creates it.
      expect(new Set(calls)).toEqual(
        new Set(["POST /threads/{id}/commands", "command run.start", "command input.respond", "POST /threads/{id}/stream/events", "GET /threads/{id}/state"]),
      );
      const state = await sdkClient(server.url).threads.getState(threadId);
      expect((state.values as { messages: Array<{ content: unknown }> }).messages.map((m) => contentText(m.content))).toEqual([
        "Tell me about otters",
        ANSWER,
        "Reviewed: approved",
      ]);
    });

    it("does the same over the WebSocket transport", async () => {
      const { calls } = await chat("websocket");
      // Events arrive on the socket only after `subscription.subscribe`; the state read is plain HTTP.
      expect(new Set(calls)).toEqual(
        new Set(["WS /threads/{id}/stream/events", "command run.start", "command subscription.subscribe", "command input.respond", "GET /threads/{id}/state"]),
      );
    });
  });
}

/** A message's text, whether the server keeps its content as a string or as content blocks. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return String(content);
  return content.map((block: { text?: string }) => block.text ?? "").join("");
}
