// Loads something from the API for a component: the latest answer, its error text, whether a call
// is in flight, and a way to ask again. Answers to superseded calls are dropped.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "./api.js";

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reload = useCallback(() => {
    const call = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (call !== latest.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (err: unknown) => {
        if (call !== latest.current) return;
        setError(errorText(err));
        setLoading(false);
      },
    );
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, loading, reload };
}
