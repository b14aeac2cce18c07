// Signals between the API and workers: "runs:wake" nudges idle workers, "run:<id>:cancel" reaches
// the worker executing a run. Fire-and-forget, no replay: the database stays the truth and a lost
// message costs one poll. The port is async because its Redis implementation (pub/sub) is.
import type { Logger } from "../logging.js";

export type MessageHandler = (message: string) => void;

export interface MessageBus {
  /** Resolves once sent, not once delivered: subscribers elsewhere may see it later. */
  publish(topic: string, message: string): Promise<void>;
  /**
   * Resolves once the subscription is live, so a message published after that reaches it; the
   * result unsubscribes. Handlers must not throw: the bus logs it and keeps delivering to others.
   */
  subscribe(topic: string, handler: MessageHandler): Promise<() => void>;
}

/** In-process bus for `gantry dev`: delivers synchronously, in subscription order. */
export function createMemoryBus({ log }: { log: Logger }): MessageBus {
  const topics = new Map<string, Set<MessageHandler>>();
  return {
    async publish(topic, message) {
      const handlers = topics.get(topic);
      if (!handlers) return;
      // A copy, so a handler that unsubscribes (or subscribes) mid-delivery doesn't change this delivery.
      for (const handler of [...handlers]) {
        try {
          handler(message);
        } catch (err) {
          log.error("bus handler failed", { topic, err });
        }
      }
    },
    async subscribe(topic, handler) {
      let handlers = topics.get(topic);
      if (!handlers) topics.set(topic, (handlers = new Set()));
      // Each subscription gets its own entry, so the same function subscribed twice is delivered twice.
      const entry: MessageHandler = (message) => handler(message);
      handlers.add(entry);
      return () => {
        handlers.delete(entry);
        if (handlers.size === 0 && topics.get(topic) === handlers) topics.delete(topic);
      };
    },
  };
}
