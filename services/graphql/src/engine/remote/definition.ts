/**
 * A remote schema's `definition` as metadata keeps it, read into what the engine uses
 * (RemoteSchemaDef in server/src-lib/Hasura/RemoteSchema/Metadata/Core.hs): `url` or
 * `url_from_env`, `headers`, `forward_client_headers` (false), `timeout_seconds` (60) and
 * `customization` (server/src-lib/Hasura/RemoteSchema/Metadata/Customization.hs).
 */
import { parseFailed, reservedFieldCustomization } from "../errors/index.js";
import { isObject, type Json } from "../metadata/args.js";
import type { HeaderModel } from "../model/types.js";
import type { RemoteCustomization, RemoteSchemaDefinition } from "./types.js";

/** Hasura's default `timeout_seconds`. */
const DEFAULT_TIMEOUT_SECONDS = 60;

const str = (value: unknown): string | null => (typeof value === "string" ? value : null);

function mapping(value: unknown): Record<string, string> {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

function customization(value: unknown): RemoteCustomization | null {
  if (!isObject(value)) return null;
  const types = isObject(value.type_names) ? value.type_names : null;
  const fields = Array.isArray(value.field_names) ? value.field_names.filter(isObject) : [];
  return {
    rootFieldsNamespace: str(value.root_fields_namespace),
    typeNames: types ? { prefix: str(types.prefix), suffix: str(types.suffix), mapping: mapping(types.mapping) } : null,
    fieldNames: fields.map((f) => ({
      parentType: String(f.parent_type),
      prefix: str(f.prefix),
      suffix: str(f.suffix),
      mapping: mapping(f.mapping),
    })),
  };
}

function headers(value: unknown): HeaderModel[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((h) => ({
    name: String(h.name),
    ...(typeof h.value === "string" ? { value: h.value } : {}),
    ...(typeof h.value_from_env === "string" ? { valueFromEnv: h.value_from_env } : {}),
  }));
}

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Every name a customization gives must be a GraphQL name, as Hasura's parser reads them (G.Name). */
function checkNames(custom: RemoteCustomization): void {
  const path = "$.args.definition.customization";
  const check = (value: string | null, where: string) => {
    if (value !== null && !NAME.test(value)) throw parseFailed(`${JSON.stringify(value)} is not a valid GraphQL name`, `${path}.${where}`);
  };
  check(custom.rootFieldsNamespace, "root_fields_namespace");
  check(custom.typeNames?.prefix ?? null, "type_names.prefix");
  // A suffix follows a name: it need not start as one.
  if (custom.typeNames?.suffix && !/^[_0-9A-Za-z]+$/.test(custom.typeNames.suffix)) check(custom.typeNames.suffix, "type_names.suffix");
  for (const [from, to] of Object.entries(custom.typeNames?.mapping ?? {})) {
    check(from, "type_names.mapping");
    check(to, "type_names.mapping");
  }
  for (const [i, f] of custom.fieldNames.entries()) {
    check(f.prefix, `field_names[${i}].prefix`);
    if (f.suffix && !/^[_0-9A-Za-z]+$/.test(f.suffix)) check(f.suffix, `field_names[${i}].suffix`);
    for (const [from, to] of Object.entries(f.mapping)) {
      check(from, `field_names[${i}].mapping`);
      check(to, `field_names[${i}].mapping`);
    }
  }
}

/** The definition read; a mapping of a reserved field name (`__typename`) is refused as Hasura refuses it. */
export function readDefinition(definition: Json): RemoteSchemaDefinition {
  const custom = customization(definition.customization);
  if (custom) checkNames(custom);
  for (const f of custom?.fieldNames ?? [])
    for (const name of Object.keys(f.mapping)) if (name.startsWith("__")) throw reservedFieldCustomization(name);
  const timeout = definition.timeout_seconds;
  return {
    url: str(definition.url),
    urlFromEnv: str(definition.url_from_env),
    headers: headers(definition.headers),
    forwardClientHeaders: definition.forward_client_headers === true,
    timeoutSeconds: typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_SECONDS,
    customization: custom,
  };
}

/** What a fetch of the remote's schema depends on: the same key, the same introspection. */
export function fetchKey(definition: RemoteSchemaDefinition): string {
  const { url, urlFromEnv, headers: sent, timeoutSeconds } = definition;
  return JSON.stringify([url, urlFromEnv, sent, timeoutSeconds]);
}

/** The definition as Hasura stores and exports it: null keys left out, `forward_client_headers` always there. */
export function storedDefinition(definition: Json): Json {
  const out: Json = {};
  for (const key of ["url", "url_from_env", "headers"])
    if (definition[key] !== undefined && definition[key] !== null) out[key] = definition[key];
  out.forward_client_headers = definition.forward_client_headers === true;
  for (const key of ["timeout_seconds", "customization"])
    if (definition[key] !== undefined && definition[key] !== null) out[key] = definition[key];
  for (const [key, value] of Object.entries(definition)) if (!(key in out) && value !== null && value !== undefined) out[key] = value;
  return out;
}
