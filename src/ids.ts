// Identifier rules from the wire spec: uuid7 for new records, uuid5 for system assistants.
import { v5 as uuidv5, v7 as uuidv7, validate } from "uuid";

/** The namespace the platform uses to derive a graph's system assistant id (spec §0.1). */
const SYSTEM_ASSISTANT_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

export const newId = (): string => uuidv7();

export const systemAssistantId = (graphId: string): string => uuidv5(graphId, SYSTEM_ASSISTANT_NAMESPACE);

export const isUuid = (value: string): boolean => validate(value);
