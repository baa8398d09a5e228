/** The engine's schema for a set of request headers, read by introspection, and its fields as `name(args): Type` text. */
import {
  buildClientSchema,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isObjectType,
} from "graphql";
import { ADMIN_SECRET, type TestPlatform } from "./platform.js";

export const ADMIN_HEADERS = { "x-hasura-admin-secret": ADMIN_SECRET };
/** The admin acting as `role` (Hasura lets the admin secret name any role and session variables). */
export const roleHeaders = (role: string, variables: Record<string, string> = {}) => ({
  ...ADMIN_HEADERS,
  "x-hasura-role": role,
  ...variables,
});

export async function schemaFor(platform: TestPlatform, headers: Record<string, string>): Promise<GraphQLSchema> {
  const answer = await platform.graphql<IntrospectionQuery>(getIntrospectionQuery(), {}, headers);
  if (!answer.data) throw new Error(`introspection failed: ${JSON.stringify(answer)}`);
  return buildClientSchema(answer.data);
}

export function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type of the schema`);
  return type;
}

export function inputType(schema: GraphQLSchema, name: string): GraphQLInputObjectType {
  const type = schema.getType(name);
  if (!isInputObjectType(type)) throw new Error(`${name} is not an input type of the schema`);
  return type;
}

/** An object's or input's fields by name, each as its type. */
export function fieldTypes(type: GraphQLObjectType | GraphQLInputObjectType): Record<string, string> {
  return Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, String(f.type)]));
}

/** `name(arg: Type, ...): Type`, the arguments in name order. */
export function signature(field: GraphQLField<unknown, unknown>): string {
  const args = [...field.args].sort((a, b) => a.name.localeCompare(b.name)).map((a) => `${a.name}: ${String(a.type)}`);
  return `${field.name}${args.length ? `(${args.join(", ")})` : ""}: ${String(field.type)}`;
}

/** An enum's values, sorted; undefined when the schema has no such enum. */
export function enumValues(schema: GraphQLSchema, name: string): string[] | undefined {
  const type = schema.getType(name);
  return isEnumType(type)
    ? type
        .getValues()
        .map((v) => v.name)
        .sort()
    : undefined;
}

export const sorted = (values: Iterable<string>) => [...values].sort();
