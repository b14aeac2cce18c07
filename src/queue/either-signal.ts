// A run's graph gets one signal that fires on a cancel, on the run's time limit or on a failed
// checkpoint write. Not
// AbortSignal.any: on Node 20 a composite signal that has an abort listener and never fires is
// kept alive for the life of the process, and LangGraph leaves a listener on the signal of every
// run it streams. Every run that finished without being cancelled stayed in memory, about 3 KB
// each with the echo graph and more with larger states.
export interface EitherSignal {
  signal: AbortSignal;
  /** Stops listening to the sources; call it when the run is over. */
  dispose(): void;
}

/** Fires with the reason of whichever source fires first. */
export function eitherSignal(...sources: AbortSignal[]): EitherSignal {
  const controller = new AbortController();
  const onAbort = (event: Event) => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  const dispose = () => {
    for (const source of sources) source.removeEventListener("abort", onAbort);
  };
  const fired = sources.find((source) => source.aborted);
  if (fired) controller.abort(fired.reason);
  else for (const source of sources) source.addEventListener("abort", onAbort, { once: true });
  return { signal: controller.signal, dispose };
}
