// Host resolution for the run-creation check of a webhook URL, bounded so a slow DNS server can't
// hold a run-create request: past the bound the name counts as unresolved (and delivery checks it).
import { lookup } from "node:dns/promises";
import type { ResolveHost } from "./webhook-url.js";

const RESOLVE_DEADLINE_MS = 2_000;

export const resolveHost: ResolveHost = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolving ${host} took longer than ${RESOLVE_DEADLINE_MS} ms`)), RESOLVE_DEADLINE_MS);
  });
  try {
    const addresses = await Promise.race([lookup(host, { all: true }), deadline]);
    return addresses.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};
