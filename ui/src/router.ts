// Pages are paths under the page's base (`threads/<id>`), kept in the History API; the server
// answers every such path with index.html, so reloads and shared links work.
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "assistants"; assistantId?: string }
  | { page: "threads" }
  | { page: "thread"; threadId: string; assistantId?: string }
  | { page: "metrics" };

const CHANGED = "gantry:navigate";

/** The path's segments under the page's base, decoded. */
export function pathSegments(location: Location): string[] {
  const base = new URL(document.baseURI).pathname;
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : "";
  return path.split("/").filter(Boolean).map(decodeURIComponent);
}

export function parseRoute(location: Location): Route {
  const [first, second] = pathSegments(location);
  const assistantId = new URLSearchParams(location.search).get("assistant") ?? undefined;
  if (first === "threads" && second) return { page: "thread", threadId: second, assistantId };
  if (first === "threads") return { page: "threads" };
  if (first === "metrics") return { page: "metrics" };
  return { page: "assistants", assistantId: second };
}

export function navigate(to: string): void {
  history.pushState(null, "", new URL(to, document.baseURI));
  window.dispatchEvent(new Event(CHANGED));
}

export function useRoute(): Route {
  return useLocationRoute(parseRoute);
}

/** The current page as `parse` reads it, updated on every navigation (each app has its own routes). */
export function useLocationRoute<R>(parse: (location: Location) => R): R {
  const [route, setRoute] = useState(() => parse(window.location));
  useEffect(() => {
    const update = () => setRoute(parse(window.location));
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGED, update);
    };
  }, []);
  return route;
}

/** Absolute href of a page, for links that still work with a middle click. */
export function href(to: string): string {
  return new URL(to, document.baseURI).href;
}

/** Click handler that navigates in place unless the user asked for a new tab. */
export function follow(to: string) {
  return (event: MouseEvent) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(to);
  };
}
