// Channel subscriptions shared by everything in one process that listens on Redis pub/sub: the
// bus's topics and the event logs' process channel. One SUBSCRIBE per channel however many
// listeners it has, released when the last one leaves, all on the one subscriber connection.
import type { Redis } from "ioredis";
import type { Logger } from "../logging.js";

export type ChannelListener = (message: string) => void;

export interface RedisChannels {
  /** Resolves once Redis confirmed the subscription; the result stops listening. */
  listen(channel: string, listener: ChannelListener): Promise<() => void>;
}

export function redisChannels(subscriber: Redis, log: Logger): RedisChannels {
  const listeners = new Map<string, Set<ChannelListener>>();
  // The latest SUBSCRIBE per channel: a listener added while it is in flight waits for it too.
  const subscribed = new Map<string, Promise<unknown>>();

  subscriber.on("message", (channel: string, message: string) => {
    const set = listeners.get(channel);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(message);
      } catch (err) {
        log.error("Redis channel listener failed", { channel, err });
      }
    }
  });

  return {
    async listen(channel, listener) {
      let set = listeners.get(channel);
      if (!set) {
        listeners.set(channel, (set = new Set()));
        subscribed.set(channel, subscriber.subscribe(channel));
      }
      const entry: ChannelListener = (message) => listener(message);
      set.add(entry);
      try {
        await subscribed.get(channel);
      } catch (err) {
        // A listener that never heard anything still relies on polling; say why it is slower.
        log.warn("Redis subscribe failed; falling back to polling", { channel, err: (err as Error).message });
      }
      return () => {
        if (!set.delete(entry) || set.size > 0 || listeners.get(channel) !== set) return;
        listeners.delete(channel);
        subscribed.delete(channel);
        subscriber.unsubscribe(channel).catch(() => {});
      };
    },
  };
}
