// Every statement Gantry and its checkpointer send with parameters becomes a named prepared
// statement on its connection, so PostgreSQL parses and plans it once per connection instead of on
// every call. Profiled under `gantry serve` (32 clients of stateless runs.wait), parsing and
// planning were about 40% of PostgreSQL's CPU, and the executor under a sixth; naming cut
// PostgreSQL's CPU per run by about 40% (docs/benchmarks.md).
//
// Statement texts are static in nearly every query; the few built per call (filters, IN lists)
// would make a name each, so names stop at a bound and later texts go unnamed as before.
// PgBouncer in transaction mode before 1.21 cannot route named statements:
// GANTRY_POSTGRES_PREPARED_STATEMENTS=false turns them off.

/** Distinct texts named per pool; past it, statements are sent unnamed. Each named text costs a plan per connection. */
export const MAX_NAMED_STATEMENTS = 500;

/**
 * Rewrites pg's `query(text, values, ...)` arguments into `query({ name, text, values }, ...)`.
 * Config objects, callbacks, and texts without a values array (BEGIN, COMMIT, DDL) pass unchanged.
 */
export function statementNamer(limit = MAX_NAMED_STATEMENTS): (args: unknown[]) => unknown[] {
  const names = new Map<string, string>();
  return (args) => {
    const [text, values] = args;
    if (typeof text !== "string" || !Array.isArray(values)) return args;
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= limit) return args;
      name = `gantry_${names.size}`;
      names.set(text, name);
    }
    return [{ name, text, values }, ...args.slice(2)];
  };
}
