/**
 * A Hasura project's actions live in two files: `actions.graphql` holds their SDL (the fields of
 * `type Mutation` / `type Query`, and the custom types they use) and `actions.yaml` the rest
 * (handler, kind, permissions, type descriptions and relationships). Hasura's CLI merges them
 * before it sends metadata to the server (cli/internal/metadataobject/actions/actions.go, whose
 * SDL conversion parses with graphql-js in the console's shared sdlUtils): an action's
 * `definition` gets `type`, `arguments` and `output_type` from the SDL, each custom type its
 * fields (or values) from the SDL, and what actions.yaml says wins over both. Doing the same
 * here gives the metadata Hasura would have stored for the project.
 */
import {
  type DefinitionNode,
  type FieldDefinitionNode,
  type InputValueDefinitionNode,
  Kind,
  parse,
  print,
  type StringValueNode,
} from "graphql";
import { isObject, type Json } from "./args.js";

export class ActionsSdlError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ActionsSdlError";
  }
}

const CUSTOM_TYPE_KINDS = ["scalars", "enums", "input_objects", "objects"] as const;
type CustomTypeKind = (typeof CUSTOM_TYPE_KINDS)[number];

/** The object types whose fields are actions, and the action `type` each gives. */
const OPERATION_TYPES: Record<string, "mutation" | "query"> = { Mutation: "mutation", Query: "query" };

function withDescription(out: Json, description: StringValueNode | undefined): Json {
  const text = description?.value.trim();
  return text ? { ...out, description: text } : out;
}

/** `{name, type, description?}` with the type printed as Hasura stores it (`[Int!]!`). */
function typedValue(node: FieldDefinitionNode | InputValueDefinitionNode): Json {
  return withDescription({ name: node.name.value, type: print(node.type) }, node.description);
}

interface SdlContent {
  actions: Json[];
  types: Record<CustomTypeKind, Json[]>;
}

function readDefinition(def: DefinitionNode, out: SdlContent): void {
  switch (def.kind) {
    case Kind.OBJECT_TYPE_DEFINITION:
    case Kind.OBJECT_TYPE_EXTENSION: {
      const operation = OPERATION_TYPES[def.name.value];
      if (operation) {
        for (const field of def.fields ?? []) {
          const definition = { type: operation, arguments: (field.arguments ?? []).map(typedValue), output_type: print(field.type) };
          // The CLI takes an action's comment from actions.yaml only, so the SDL description is not kept.
          out.actions.push({ name: field.name.value, definition });
        }
      } else if (def.kind === Kind.OBJECT_TYPE_DEFINITION) {
        out.types.objects.push(withDescription({ name: def.name.value, fields: (def.fields ?? []).map(typedValue) }, def.description));
      }
      return;
    }
    case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      out.types.input_objects.push(withDescription({ name: def.name.value, fields: (def.fields ?? []).map(typedValue) }, def.description));
      return;
    case Kind.ENUM_TYPE_DEFINITION: {
      const values = (def.values ?? []).map((v) => withDescription({ value: v.name.value }, v.description));
      out.types.enums.push(withDescription({ name: def.name.value, values }, def.description));
      return;
    }
    case Kind.SCALAR_TYPE_DEFINITION:
      out.types.scalars.push(withDescription({ name: def.name.value }, def.description));
      return;
    case Kind.SCHEMA_DEFINITION:
      throw new ActionsSdlError("You cannot have schema definitions in Action/Type definitions");
    case Kind.INTERFACE_TYPE_DEFINITION:
      throw new ActionsSdlError("Interface types are not supported");
    default:
      return;
  }
}

/** Actions and custom types as the SDL states them. */
export function readActionsSdl(sdl: string): SdlContent {
  const out: SdlContent = { actions: [], types: { scalars: [], enums: [], input_objects: [], objects: [] } };
  if (sdl.trim() === "") return out;
  let definitions: readonly DefinitionNode[];
  try {
    definitions = parse(sdl, { noLocation: true }).definitions;
  } catch (error) {
    throw new ActionsSdlError((error as Error).message, { cause: error });
  }
  for (const def of definitions) readDefinition(def, out);
  return out;
}

function named(list: unknown, what: string): Json[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new ActionsSdlError(`${what} must be a list`);
  return list.map((item) => {
    if (!isObject(item) || typeof item.name !== "string") throw new ActionsSdlError(`every entry of ${what} needs a name`);
    return item;
  });
}

/**
 * The SDL's entries with the YAML's merged over them by name. Like the CLI, an entry that
 * actions.yaml names but the SDL does not define is an error; one only in the SDL is kept.
 */
function mergeByName(fromSdl: Json[], fromYaml: Json[], what: string, merge: (sdl: Json, yaml: Json) => Json): Json[] {
  const yamlByName = new Map(fromYaml.map((entry) => [entry.name as string, entry]));
  for (const name of yamlByName.keys()) {
    if (!fromSdl.some((entry) => entry.name === name)) throw new ActionsSdlError(`${what} "${name}" is not present in actions.graphql`);
  }
  return fromSdl.map((entry) => {
    const yaml = yamlByName.get(entry.name as string);
    return yaml ? merge(entry, yaml) : entry;
  });
}

/**
 * Merges `actions.yaml` (its `actions` and `custom_types`) with the `actions.graphql` SDL.
 * Returns the keys to put in metadata; empty ones are left out.
 */
export function mergeActionsSdl(yaml: { actions?: unknown; custom_types?: unknown }, sdl: string): Json {
  const fromSdl = readActionsSdl(sdl);
  const out: Json = {};
  const actions = mergeByName(fromSdl.actions, named(yaml.actions, "actions"), "action", (s, y) => ({
    ...s,
    ...y,
    definition: { ...(s.definition as Json), ...(isObject(y.definition) ? y.definition : {}) },
  }));
  if (actions.length > 0) out.actions = actions;
  const yamlTypes = isObject(yaml.custom_types) ? yaml.custom_types : {};
  const customTypes: Json = {};
  for (const kind of CUSTOM_TYPE_KINDS) {
    const merged = mergeByName(fromSdl.types[kind], named(yamlTypes[kind], `custom_types.${kind}`), "custom type", (s, y) => ({
      ...s,
      ...y,
    }));
    if (merged.length > 0) customTypes[kind] = merged;
  }
  if (Object.keys(customTypes).length > 0) out.custom_types = customTypes;
  return out;
}
