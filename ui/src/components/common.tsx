// Small pieces every page uses: errors, progress, JSON, statuses and in-app links.
import type { ComponentChildren } from "preact";
import { follow, href } from "../router.js";

export function ErrorBox({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Progress({ label }: { label: string }) {
  return (
    <p class="progress" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function Json({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="json" aria-label={label}>
      {JSON.stringify(value, null, 2) ?? "undefined"}
    </pre>
  );
}

export function Status({ status }: { status: string }) {
  return <span class={`status status-${status}`}>{status}</span>;
}

export function Link({ to, children, class: className }: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={href(to)} onClick={follow(to)} class={className}>
      {children}
    </a>
  );
}

export function when(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "";
}
