// What an attacker puts where a schema expects something else: wrong types, boundary numbers, deep
// nesting, odd Unicode, huge strings, many keys. Deep values travel as a placeholder string and are
// spliced into the JSON text when the request is sent, so 100,000 levels cost no recursion here.
import fc from "fast-check";

const DEEP = /"@@deep-(obj|arr)-(\d+)@@"/g;

export const deep = (kind: "obj" | "arr", levels: number): string => `@@deep-${kind}-${levels}@@`;

/** JSON text of a value, with deep placeholders expanded. */
export function toJsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.replace(DEEP, (_, kind: string, n: string) => {
    const levels = Number(n);
    return kind === "obj" ? '{"a":'.repeat(levels) + "1" + "}".repeat(levels) : "[".repeat(levels) + "1" + "]".repeat(levels);
  });
}

/** Placeholders in a value shown as what they stand for, for a readable reproducer. */
export function describeValue(value: unknown, max = 600): string {
  const text = (JSON.stringify(value) ?? "undefined").replace(DEEP, (_, kind: string, n: string) => `<${kind === "obj" ? '{"a":' : "["} nested ${n} levels>`);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

export const oddStrings = fc.constantFrom(
  "",
  "\u0000",
  "owner\u0000",
  "\ud800",
  "x\udc00",
  "\ud83d\ude00",
  "\u202e\u200b\ufeff",
  "\u0085\u2028\u2029",
  "\\",
  '"',
  "'; DROP TABLE threads; --",
  "%00",
  "../../etc/passwd",
  "$.a",
  "a.b",
  "[0]",
  "*",
  "$ne",
  "${x}",
  "\u00e9\u0301",
  "NaN",
  "-1",
  "1e999",
);

// The largest sizes are the rarest: they cost the most to send and parse, and one of each finds what they find.
const sizes = (small: number, medium: number, large: number) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(small) }, { weight: 3, arbitrary: fc.constant(medium) }, { weight: 1, arbitrary: fc.constant(large) });

export const hugeStrings = sizes(1_000, 10_000, 100_000).map((n) => "x".repeat(n));

export const boundaryNumbers = fc.constantFrom(
  0,
  -0,
  -1,
  0.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  1e21,
  -(2 ** 63),
  1e100,
);

export const wrongTypes = fc.constantFrom<unknown>([], {}, "", true, false, null, "1", [1], { a: 1 }, ["a", "b"]);

export const deepValues = fc
  .tuple(fc.constantFrom<"obj" | "arr">("obj", "arr"), fc.oneof(fc.constantFrom(20, 99, 100, 101), sizes(1_000, 10_000, 100_000)))
  .map(([kind, n]) => deep(kind, n));

/** Objects with many keys and lists with many items (namespaces of hundreds of labels, filters of thousands of keys). */
export const wideValues = fc.oneof(
  sizes(101, 500, 5_000).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  sizes(33, 300, 3_000).map((n) => Array.from({ length: n }, (_, i) => `l${i}`)),
);

/** Keys a metadata or filter object may be given. */
export const oddKeys = fc.oneof(oddStrings, hugeStrings, fc.constantFrom("$eq", "$gt", "a.b.c", "values", "0"));

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  oddStrings,
  hugeStrings,
  boundaryNumbers,
  wrongTypes,
  deepValues,
  wideValues,
  fc.dictionary(oddKeys, fc.oneof(oddStrings, boundaryNumbers, deepValues), { minKeys: 1, maxKeys: 2 }),
  fc.array(oddStrings, { minLength: 1, maxLength: 3 }),
);

/** Raw bodies that are not JSON, or not whole. */
export const brokenJsonText = fc.constantFrom(
  "{",
  '{"a":',
  "[1,2",
  '{"a":1}}',
  "nul",
  "\u0000",
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  "1e999",
  '"x"',
  "{".repeat(5_000),
);

/** Applies one hostile change to a body that fits its schema. */
export function mutateBody(body: unknown): fc.Arbitrary<unknown> {
  const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? Object.keys(body) : [];
  const field = fields.length > 0 ? fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 });
  const asObject = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  return fc.oneof(
    fc.tuple(field, hostileValue).map(([name, value]) => ({ ...asObject, [name]: value })),
    fc.tuple(field, oddKeys, fc.oneof(hostileValue, fc.constant("x"))).map(([name, key, value]) => ({ ...asObject, [name]: { [key]: value } })),
    hostileValue,
  );
}
