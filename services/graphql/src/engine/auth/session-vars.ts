/** Session variables: from request headers, from JSON claim values, and the backend-only switch. */
import { invalidBackendOnlyHeader } from "../errors/index.js";

export const ROLE_HEADER = "x-hasura-role";
export const ADMIN_SECRET_HEADER = "x-hasura-admin-secret";
export const ACCESS_KEY_HEADER = "x-hasura-access-key";
export const BACKEND_ONLY_HEADER = "x-hasura-use-backend-only-permissions";

export type RequestHeaders = Record<string, string | undefined>;

/** Every `x-hasura-*` header but the secrets, names lower-cased (Hasura's mkSessionVariablesHeaders). */
export function headerSessionVariables(headers: RequestHeaders): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || !key.startsWith("x-hasura-")) continue;
    if (key === ADMIN_SECRET_HEADER || key === ACCESS_KEY_HEADER) continue;
    variables[key] = value;
  }
  return variables;
}

/** Double-quotes an array element when Postgres' array input would misread it bare. */
function arrayElement(value: unknown): string {
  if (value === null) return "NULL";
  if (Array.isArray(value)) return pgArrayLiteral(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text !== "" && !/[{}",\\\s]/.test(text) && text.toUpperCase() !== "NULL") return text;
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A JSON array as a Postgres array literal: `["a", "b c", 1]` → `{a,"b c",1}`. */
export function pgArrayLiteral(values: readonly unknown[]): string {
  return `{${values.map(arrayElement).join(",")}}`;
}

/**
 * A claim value as session-variable text. Hasura accepts only strings; we also take other JSON:
 * arrays become Postgres array literals (what `_in` with a session variable expects), anything
 * else its JSON text.
 */
export function sessionValueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return pgArrayLiteral(value);
  return JSON.stringify(value);
}

const TRUE_VALUES = ["true", "t", "yes", "y"];
const FALSE_VALUES = ["false", "f", "no", "n"];

/** `x-hasura-use-backend-only-permissions` as Hasura parses it; absent means false. */
export function parseBackendOnly(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  if (TRUE_VALUES.includes(v)) return true;
  if (FALSE_VALUES.includes(v)) return false;
  throw invalidBackendOnlyHeader(TRUE_VALUES, FALSE_VALUES);
}
