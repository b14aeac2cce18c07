// Which request headers reach a run's `configurable` (http.configurable_headers). Without includes,
// the official servers' default: every `x-*` header and `user-agent`. Includes replace that default,
// excludes win over both, and the secret headers never pass whatever the patterns say.

const NEVER = new Set(["x-api-key", "x-tenant-id", "x-service-key", "authorization", "cookie"]);

export interface HeaderPatterns {
  includes?: string[];
  excludes?: string[];
  include?: string[];
  exclude?: string[];
}

const DEFAULT_INCLUDES = ["x-*", "user-agent"];

export function headerFilter(patterns: HeaderPatterns | undefined): (headers: Headers | Record<string, string>) => Record<string, string> {
  const listed = [...(patterns?.includes ?? []), ...(patterns?.include ?? [])];
  const includes = (listed.length > 0 ? listed : DEFAULT_INCLUDES).map(globToRegExp);
  const excludes = [...(patterns?.excludes ?? []), ...(patterns?.exclude ?? [])].map(globToRegExp);
  return (headers) => {
    const out: Record<string, string> = {};
    const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
    for (const [rawName, value] of entries) {
      const name = rawName.toLowerCase();
      if (NEVER.has(name)) continue;
      if (!includes.some((re) => re.test(name)) || excludes.some((re) => re.test(name))) continue;
      out[name] = value;
    }
    return out;
  };
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}
