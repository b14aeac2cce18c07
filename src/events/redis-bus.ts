// The message bus of `gantry serve` on Redis pub/sub: wake-ups and cancels reach every replica.
// Pub/sub keeps nothing, which is all the bus promises: PostgreSQL stays the truth and a message
// lost while a connection is down costs one poll (wake-ups) or one heartbeat (cancels).
import type { Redis } from "ioredis";
import type { MessageBus } from "./event-bus.js";
import type { RedisChannels } from "./redis-channels.js";

export function createRedisBus({ commands, channels, prefix }: { commands: Redis; channels: RedisChannels; prefix: string }): MessageBus {
  const channel = (topic: string) => `${prefix}bus:${topic}`;
  return {
    async publish(topic, message) {
      await commands.publish(channel(topic), message);
    },
    subscribe(topic, handler) {
      return channels.listen(channel(topic), handler);
    },
  };
}
