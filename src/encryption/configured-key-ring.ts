// The key ring from the environment's keys. Its own module, light to import: `gantry serve` builds
// it before anything else loads, for the event log.
import { StartupError } from "../errors.js";
import { type KeyRing, KeyRingError, keyRing } from "./key-ring.js";

/** A key of the wrong length stops start-up with the sentence that says how to make a good one. */
export function configuredKeyRing(current: string, previous: string[]): KeyRing {
  try {
    return keyRing(
      { key: current, name: "LANGGRAPH_AES_KEY" },
      previous.map((key, i) => ({ key, name: `GANTRY_AES_PREVIOUS_KEYS (key ${i + 1})` })),
    );
  } catch (err) {
    if (err instanceof KeyRingError) throw new StartupError(err.message);
    throw err;
  }
}
