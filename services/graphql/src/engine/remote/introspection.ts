/**
 * Reading a remote's introspection answer into its type definitions, as Hasura's FromIntrospection
 * parsers do (server/src-lib/Hasura/GraphQL/RemoteServer.hs): `data.__schema` with its root type
 * names and types; a member of `possibleTypes` or `interfaces` must itself be an object or
 * interface reference with a name. A malformed answer fails with aeson's wording
 * (`Error in $.types[1].possibleTypes[0].name: parsing Name failed, expected String, but
 * encountered Null`), paths below `__schema` as Hasura's show them.
 */

import { getIntrospectionQuery, parseValue } from "graphql";
import { jsonKind as kindOf } from "../json/kind.js";
import type { TypeRef } from "../model/types.js";
import type { RemoteFieldDef, RemoteInputValue, RemoteIntrospection, RemoteTypeDef } from "./types.js";

/** The introspection query POSTed to a remote (descriptions, no deprecated fields: Hasura ignores deprecation). */
export const INTROSPECTION_QUERY = getIntrospectionQuery({ descriptions: true });

/** Why an introspection answer could not be read; the message is Hasura's. */
export class IntrospectionFailure extends Error {}

type Obj = Record<string, unknown>;

const fail = (path: string, message: string): never => {
  throw new IntrospectionFailure(`Error in ${path}: ${message}`);
};

function object(value: unknown, path: string, what: string): Obj {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    fail(path, `parsing ${what} failed, expected Object, but encountered ${kindOf(value)}`);
  return value as Obj;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, `parsing [] failed, expected Array, but encountered ${kindOf(value)}`);
  return value as unknown[];
}

/** `o .: key`: the key must be there. */
function required(o: Obj, key: string, path: string): unknown {
  if (!(key in o)) fail(path, `key "${key}" not found`);
  return o[key];
}

const at = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : `${path}.${key}`);

function name(o: Obj, path: string): string {
  const value = required(o, "name", path);
  if (typeof value !== "string") fail(at(path, "name"), `parsing Name failed, expected String, but encountered ${kindOf(value)}`);
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(value as string)) fail(at(path, "name"), `parsing Name failed, invalid name ${value as string}`);
  return value as string;
}

function text(o: Obj, key: string, path: string): string {
  const value = required(o, key, path);
  if (typeof value !== "string") fail(at(path, key), `parsing Text failed, expected String, but encountered ${kindOf(value)}`);
  return value as string;
}

function description(o: Obj): string | null {
  return typeof o.description === "string" ? o.description : null;
}

/** `o .:? key` of a list: absent or null is none. */
function optionalList<T>(o: Obj, key: string, path: string, item: (value: unknown, path: string) => T): T[] {
  const value = o[key];
  if (value === undefined || value === null) return [];
  return array(value, at(path, key)).map((v, i) => item(v, at(at(path, key), i)));
}

function typeRef(value: unknown, path: string): TypeRef {
  const o = object(value, path, "GType");
  const kind = text(o, "kind", path);
  const of = o.ofType;
  if (kind === "NON_NULL" || kind === "LIST") {
    if (of === undefined || of === null) fail(path, `${kind} should have \`ofType\``);
    const inner = typeRef(of, at(path, "ofType"));
    return kind === "LIST" ? { kind: "list", of: inner, nullable: true } : { ...inner, nullable: false };
  }
  if (typeof o.name !== "string") fail(path, `kind: ${kind} should have name`);
  return { kind: "named", name: o.name as string, nullable: true };
}

function inputValue(value: unknown, path: string): RemoteInputValue {
  const o = object(value, path, "InputValueDefinition");
  const defaultValue = typeof o.defaultValue === "string" ? o.defaultValue : null;
  if (defaultValue !== null) {
    try {
      parseValue(defaultValue);
    } catch (error) {
      fail(at(path, "defaultValue"), (error as Error).message);
    }
  }
  return { name: name(o, path), description: description(o), type: typeRef(required(o, "type", path), at(path, "type")), defaultValue };
}

function field(value: unknown, path: string): RemoteFieldDef {
  const o = object(value, path, "FieldDefinition");
  const fieldName = name(o, path);
  const args = array(required(o, "args", path), at(path, "args")).map((a, i) => inputValue(a, at(at(path, "args"), i)));
  return { name: fieldName, description: description(o), args, type: typeRef(required(o, "type", path), at(path, "type")) };
}

/** A reference in `possibleTypes` / `interfaces`: read as a definition of that kind, as Hasura reads it. */
function reference(kind: "OBJECT" | "INTERFACE") {
  return (value: unknown, path: string): string => {
    const o = object(value, path, kind === "OBJECT" ? "ObjectTypeDefinition" : "InterfaceTypeDefinition");
    const found = text(o, "kind", path);
    const refName = name(o, path);
    if (found !== kind) fail(path, `Invalid \`kind: ${found}\` in ${kind === "OBJECT" ? "object" : "interface"}`);
    return refName;
  };
}

function typeDefinition(value: unknown, path: string): RemoteTypeDef {
  const o = object(value, path, "TypeDefinition");
  const kind = text(o, "kind", path);
  const typeName = name(o, path);
  const desc = description(o);
  switch (kind) {
    case "SCALAR":
      return { kind, name: typeName, description: desc };
    case "OBJECT":
      return {
        kind,
        name: typeName,
        description: desc,
        fields: optionalList(o, "fields", path, field),
        interfaces: optionalList(o, "interfaces", path, reference("INTERFACE")),
      };
    case "INTERFACE":
      return {
        kind,
        name: typeName,
        description: desc,
        fields: optionalList(o, "fields", path, field),
        possibleTypes: optionalList(o, "possibleTypes", path, reference("OBJECT")),
      };
    case "UNION":
      return {
        kind,
        name: typeName,
        description: desc,
        possibleTypes: array(required(o, "possibleTypes", path), at(path, "possibleTypes")).map((p, i) =>
          reference("OBJECT")(p, at(at(path, "possibleTypes"), i)),
        ),
      };
    case "ENUM":
      return {
        kind,
        name: typeName,
        description: desc,
        values: array(required(o, "enumValues", path), at(path, "enumValues")).map((v, i) => {
          const value = object(v, at(at(path, "enumValues"), i), "EnumValueDefinition");
          return { name: name(value, at(at(path, "enumValues"), i)), description: description(value) };
        }),
      };
    case "INPUT_OBJECT":
      return { kind, name: typeName, description: desc, fields: optionalList(o, "inputFields", path, inputValue) };
    default:
      return fail(path, `unknown kind: ${kind}`);
  }
}

function rootName(schema: Obj, key: string): string | null {
  const root = schema[key];
  if (root === undefined || root === null) return null;
  return name(object(root, `$.${key}`, key), `$.${key}`);
}

/** The remote's schema from its introspection answer; throws IntrospectionFailure with Hasura's message. */
export function readIntrospection(answer: unknown): RemoteIntrospection {
  const top = object(answer, "$", "SchemaDocument");
  const data = object(required(top, "data", "$"), "$.data", "SchemaDocument");
  const schema = object(required(data, "__schema", "$.data"), "$", "__schema");
  const types = new Map<string, RemoteTypeDef>();
  for (const [i, value] of array(required(schema, "types", "$"), "$.types").entries()) {
    const def = typeDefinition(value, `$.types[${i}]`);
    types.set(def.name, def);
  }
  const queryRoot = name(object(required(schema, "queryType", "$"), "$.queryType", "queryType"), "$.queryType");
  const isObject = (n: string) => types.get(n)?.kind === "OBJECT";
  // Without a declared mutation (subscription) root, an object named Mutation (Subscription) is one.
  const mutationRoot = rootName(schema, "mutationType") ?? (isObject("Mutation") ? "Mutation" : null);
  const subscriptionRoot = rootName(schema, "subscriptionType") ?? (isObject("Subscription") ? "Subscription" : null);
  return { types, queryRoot, mutationRoot, subscriptionRoot };
}
