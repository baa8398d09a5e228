/**
 * A remote schema as the engine keeps it: the remote's own type definitions read from its
 * introspection (Hasura's IntrospectionResult in server/src-lib/Hasura/RemoteSchema/SchemaCache/Types.hs),
 * how its names are customized, and how it is called
 * (https://hasura.io/docs/latest/remote-schemas/overview/).
 */
import type { ConstValueNode } from "graphql";
import type { HeaderModel, TypeRef } from "../model/types.js";

/**
 * The value a role's remote schema permission presets an argument or input field to (its
 * `@preset(value: ...)` directive, https://hasura.io/docs/2.0/remote-schemas/auth/remote-schema-permissions/#argument-presets):
 * a literal, a session variable read when the remote is called (its type's name, and the enum's
 * values when it is an enum), or a list or input object of those.
 */
export type PresetValue =
  | { kind: "literal"; value: ConstValueNode }
  | { kind: "session"; variable: string; type: string; enumValues: string[] | null }
  | { kind: "list"; values: PresetValue[] }
  | { kind: "object"; fields: Array<{ name: string; value: PresetValue }> };

/** An argument or an input object's field; `defaultValue` is GraphQL literal text, as introspection gives it. */
export interface RemoteInputValue {
  name: string;
  description: string | null;
  type: TypeRef;
  defaultValue: string | null;
  /** Set in a role's view: the role may not give this value, the engine sends the preset. */
  preset?: PresetValue;
}

export interface RemoteFieldDef {
  name: string;
  description: string | null;
  args: RemoteInputValue[];
  type: TypeRef;
}

export type RemoteTypeDef =
  | { kind: "SCALAR"; name: string; description: string | null }
  | { kind: "OBJECT"; name: string; description: string | null; fields: RemoteFieldDef[]; interfaces: string[] }
  | { kind: "INTERFACE"; name: string; description: string | null; fields: RemoteFieldDef[]; possibleTypes: string[] }
  | { kind: "UNION"; name: string; description: string | null; possibleTypes: string[] }
  | { kind: "ENUM"; name: string; description: string | null; values: Array<{ name: string; description: string | null }> }
  | { kind: "INPUT_OBJECT"; name: string; description: string | null; fields: RemoteInputValue[] };

/** The remote's schema, its own names; `mutationRoot` defaults to an object named `Mutation`, as Hasura's does. */
export interface RemoteIntrospection {
  types: Map<string, RemoteTypeDef>;
  queryRoot: string;
  mutationRoot: string | null;
  subscriptionRoot: string | null;
  /** A role's view with at least one `@preset`: its requests need their arguments rewritten. */
  presets?: boolean;
  /** The remote's answer to the introspection query, as it came (introspect_remote_schema answers it). */
  answer?: unknown;
}

/** The `customization` of a remote schema definition, as given. */
export interface RemoteCustomization {
  rootFieldsNamespace: string | null;
  typeNames: { prefix: string | null; suffix: string | null; mapping: Record<string, string> } | null;
  fieldNames: Array<{ parentType: string; prefix: string | null; suffix: string | null; mapping: Record<string, string> }>;
}

/** The remote's names as this engine's schema shows them (Hasura's RemoteSchemaCustomizer). */
export interface RemoteCustomizer {
  namespace: string | null;
  /** The remote's type name -> the name in our schema (absent: unchanged). */
  typeNames: Map<string, string>;
  /** The remote's type name -> its field name -> the name in our schema. */
  fieldNames: Map<string, Map<string, string>>;
}

/** How the remote is reached: `url` (`{{ENV}}` templates unresolved) or `urlFromEnv`, and what is sent. */
export interface RemoteSchemaDefinition {
  url: string | null;
  urlFromEnv: string | null;
  headers: HeaderModel[];
  forwardClientHeaders: boolean;
  timeoutSeconds: number;
  customization: RemoteCustomization | null;
}

/** A remote schema served: fetched, valid, and without conflicts with the rest of the schema. */
export interface RemoteSchemaModel {
  name: string;
  definition: RemoteSchemaDefinition;
  introspection: RemoteIntrospection;
  customizer: RemoteCustomizer;
  /** Each role's view of the remote, from its remote schema permission (remote/permission.ts). */
  permissions?: Map<string, RemoteIntrospection>;
}

/** The customized name of one of the remote's types. */
export function customTypeName(customizer: RemoteCustomizer, name: string): string {
  return customizer.typeNames.get(name) ?? name;
}

/** The customized name of a field of one of the remote's types. */
export function customFieldName(customizer: RemoteCustomizer, typeName: string, field: string): string {
  return customizer.fieldNames.get(typeName)?.get(field) ?? field;
}
