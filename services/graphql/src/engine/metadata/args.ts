/**
 * Argument parsing for the metadata API. Hasura decodes request bodies with Aeson, so a
 * malformed body is a `parse-failed` error at the JSON path of the bad value, with Aeson's
 * wording (`key "table" not found`, `expected Object, but encountered String`).
 */

import { parseFailed } from "../errors/index.js";
import { jsonKind } from "../json/kind.js";
import { DEFAULT_SOURCE, type QualifiedTable } from "./types.js";

export type Json = Record<string, unknown>;

// The wording helpers live in the error catalogue; exported here too for the metadata modules.
export { parseFailed, quoted, tableLabel } from "../errors/index.js";

/** Appends a key or index to a path in Hasura's encodeJSONPath form. */
export function at(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${path}.${key}` : `${path}['${key}']`;
}

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function asObject(value: unknown, path: string): Json {
  if (!isObject(value)) throw parseFailed(`expected Object, but encountered ${jsonKind(value)}`, path);
  return value;
}

export function asArray(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw parseFailed(`expected Array, but encountered ${jsonKind(value)}`, path);
  return value;
}

export function asString(value: unknown, path: string): string {
  if (typeof value !== "string") throw parseFailed(`expected String, but encountered ${jsonKind(value)}`, path);
  return value;
}

export function requireKey(obj: Json, key: string, path: string): unknown {
  if (obj[key] === undefined) throw parseFailed(`key "${key}" not found`, path);
  return obj[key];
}

export function requireString(obj: Json, key: string, path: string): string {
  return asString(requireKey(obj, key, path), at(path, key));
}

export function optionalString(obj: Json, key: string, path: string): string | undefined {
  const value = obj[key];
  return value === undefined || value === null ? undefined : asString(value, at(path, key));
}

export function optionalBoolean(obj: Json, key: string, path: string): boolean | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw parseFailed(`expected Boolean, but encountered ${jsonKind(value)}`, at(path, key));
  return value;
}

/** A table name as Hasura accepts it: `"author"` (schema public) or `{schema?, name}`. */
export function qualifiedTable(value: unknown, path: string): QualifiedTable {
  if (typeof value === "string") return { schema: "public", name: value };
  const obj = asObject(value, path);
  const name = requireString(obj, "name", path);
  return { schema: optionalString(obj, "schema", path) ?? "public", name };
}

export function sameTable(a: QualifiedTable, b: QualifiedTable): boolean {
  return a.schema === b.schema && a.name === b.name;
}

export function sourceName(obj: Json, path: string): string {
  return optionalString(obj, "source", path) ?? DEFAULT_SOURCE;
}

/** The argument object of an operation; `undefined` args count as missing. */
export function argsObject(args: unknown, path: string): Json {
  if (args === undefined) throw parseFailed(`key "args" not found`, "$");
  return asObject(args, path);
}
