/**
 * The harness's comparison: JSON equality with object keys unordered and arrays ordered, and the
 * first differing path for the report.
 */

export interface Diff {
  path: string;
  expected: unknown;
  actual: unknown;
  note?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function keyPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** The first difference between expected and actual (depth first, keys sorted), or undefined when equal. */
export function firstDiff(expected: unknown, actual: unknown, path = "$"): Diff | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, expected, actual };
    const n = Math.min(expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      const diff = firstDiff(expected[i], actual[i], `${path}[${i}]`);
      if (diff) return diff;
    }
    if (expected.length !== actual.length)
      return { path, expected: `array of ${expected.length}`, actual: `array of ${actual.length}`, note: "length differs" };
    return undefined;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return { path, expected, actual };
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const key of keys) {
      if (!(key in actual)) return { path: keyPath(path, key), expected: expected[key], actual: undefined, note: "missing key" };
      if (!(key in expected)) return { path: keyPath(path, key), expected: undefined, actual: actual[key], note: "unexpected key" };
      const diff = firstDiff(expected[key], actual[key], keyPath(path, key));
      if (diff) return diff;
    }
    return undefined;
  }
  return Object.is(expected, actual) || expected === actual ? undefined : { path, expected, actual };
}

export function jsonEqual(expected: unknown, actual: unknown): boolean {
  return firstDiff(expected, actual) === undefined;
}

/** Upstream's `is_err_msg`: a body carrying `error` or `errors`. */
export function isErrorBody(body: unknown): boolean {
  return isObject(body) && ("errors" in body || "error" in body);
}

/** The first error message of a GraphQL or admin error body, if any. */
export function firstErrorMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  if (Array.isArray(body.errors)) {
    const first = body.errors[0];
    if (isObject(first) && typeof first.message === "string") return first.message;
  }
  if (typeof body.error === "string") return body.error;
  return undefined;
}

/** Short single-line JSON for the console. */
export function compact(value: unknown, max = 160): string {
  const text = value === undefined ? "(absent)" : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
