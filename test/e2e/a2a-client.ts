// The official A2A JS client (@a2a-js/sdk) pointed at a Gantry assistant, as another agent would
// use it: it reads the agent card, sees a v0.3 card and speaks v0.3 JSON-RPC to the card's URL.
import { randomUUID } from "node:crypto";
import { Role, type Message, type Part, type Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

/** A client for one assistant; `headers` go with every request (the card's too), e.g. Authorization. */
export function a2aClient(url: string, assistantId: string, headers: Record<string, string> = {}): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat, fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat, fetchImpl }),
    }),
  );
  return factory.createFromUrl(url, `${new URL(url).pathname.replace(/\/$/, "")}/.well-known/agent-card.json?assistant_id=${assistantId}`);
}

const part = (content: NonNullable<Part["content"]>): Part => ({ content, metadata: undefined, filename: "", mediaType: "" });

/** A user message with one text part, optionally continuing a context. */
export function userText(text: string, contextId = ""): Message {
  return userMessage([part({ $case: "text", value: text })], contextId);
}

/** A user message with one data part. */
export function userData(data: Record<string, unknown>, contextId = ""): Message {
  return userMessage([part({ $case: "data", value: data })], contextId);
}

function userMessage(parts: Part[], contextId: string): Message {
  return { messageId: randomUUID(), contextId, taskId: "", role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The text of a message's or artifact's parts. */
export function textOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

/** message/send with `blocking: false` (v1.0's returnImmediately): the task as soon as its run is queued. */
export async function sendWithoutWaiting(client: Client, message: Message): Promise<Task> {
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };
  return (await client.sendMessage({ tenant: "", message, configuration, metadata: undefined })) as Task;
}
