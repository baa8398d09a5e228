/**
 * A role's remote schema permission (https://hasura.io/docs/2.0/remote-schemas/auth/remote-schema-permissions/):
 * the schema document it gives must be a subset of the remote's schema, checked as Hasura's
 * validateRemoteSchema does (server/src-lib/Hasura/RemoteSchema/SchemaCache/Permission.hs), with
 * every reason it would give. Hasura checks in its Validate monad: a "disputed" problem is noted
 * and the check goes on, a "refuted" one ends the check it is part of; the types of the document,
 * the fields of a type and the arguments of a field are each checked on their own (applicatively),
 * so the reasons of all of them are reported together. The result is the role's view of the
 * remote: its types as the document declares them, arguments and input fields carrying their
 * `@preset` values (permission-presets.ts).
 */
import {
  type ConstDirectiveNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type InputValueDefinitionNode,
  Kind,
  parseValue,
  print,
  type TypeDefinitionNode,
  type TypeNode,
} from "graphql";
import { englishList } from "../errors/english-list.js";
import type { TypeRef } from "../model/types.js";
import { type InputTypeLookup, presetFromDirective } from "./permission-presets.js";
import type { RemoteFieldDef, RemoteInputValue, RemoteIntrospection, RemoteTypeDef } from "./types.js";
import { typeText } from "./validate.js";
import { dq, Refuted, RoleSchemaInvalid, Validation } from "./validation.js";

const BUILT_IN_SCALARS = ["ID", "Int", "Float", "Boolean", "String"];

type ObjectDef = Extract<RemoteTypeDef, { kind: "OBJECT" }>;
type Location = "OBJECT" | "INTERFACE" | "UNION" | "ENUM" | "INPUT_OBJECT" | "SCALAR" | "FIELD_DEFINITION" | "INPUT_FIELD_DEFINITION";

function duplicates(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const n of names) (seen.has(n) ? twice : seen).add(n);
  return [...twice];
}

/** A type as the document writes it. */
export function typeRefOf(node: TypeNode, nullable = true): TypeRef {
  if (node.kind === Kind.NON_NULL_TYPE) return typeRefOf(node.type, false);
  if (node.kind === Kind.LIST_TYPE) return { kind: "list", of: typeRefOf(node.type), nullable };
  return { kind: "named", name: node.name.value, nullable };
}

const describe = (node: { description?: { value: string } | undefined }) => node.description?.value ?? null;

/** Default values compared as values, not as text. */
function normalDefault(text: string | null): string | null {
  if (text === null) return null;
  try {
    return print(parseValue(text));
  } catch {
    return text;
  }
}

class RoleSchemaChecker {
  readonly v = new Validation();

  constructor(
    private readonly upstream: RemoteIntrospection,
    private readonly lookupInput: InputTypeLookup,
  ) {}

  private found<K extends RemoteTypeDef["kind"]>(kind: K, label: string, name: string): Extract<RemoteTypeDef, { kind: K }> {
    const def = this.upstream.types.get(name);
    if (def?.kind !== kind) this.v.refute(`${dq(label)}: ${dq(name)} does not exist in the upstream remote schema`);
    return def as Extract<RemoteTypeDef, { kind: K }>;
  }

  /** validateDirectives: only `@preset` may be given (introspection shows no directive of the remote's own). */
  private directives(nodes: readonly ConstDirectiveNode[] | undefined, location: Location, parent: [string, string]) {
    const all = nodes ?? [];
    const presets = all.filter((d) => d.name.value === "preset");
    const others = all.filter((d) => d.name.value !== "preset");
    const twice = duplicates(others.map((d) => d.name.value));
    if (twice.length > 0)
      this.v.refute(`duplicate directives: ${englishList(twice.map(dq))}found in the ${dq(parent[0])} ${dq(parent[1])}`);
    this.v.each(others, (d) => this.v.refute(`${dq("Directive")}: ${dq(d.name.value)} does not exist in the upstream remote schema`));
    if (presets.length === 0) return undefined;
    if (presets.length > 1) this.v.refute(`found multiple preset directives at ${dq(parent[0])} ${dq(parent[1])}`);
    if (location !== "INPUT_FIELD_DEFINITION")
      this.v.dispute("Preset directives can be defined only on INPUT_FIELD_DEFINITION or ARGUMENT_DEFINITION");
    return presets[0];
  }

  private inputValue(node: InputValueDefinitionNode, upstream: RemoteInputValue, parent: string): RemoteInputValue {
    const name = node.name.value;
    const preset = this.directives(node.directives, "INPUT_FIELD_DEFINITION", ["Input object argument", parent]);
    const type = typeRefOf(node.type);
    if (typeText(type) !== typeText(upstream.type))
      this.v.dispute(
        `expected type of ${dq(name)}(${dq("Input object argument")}) to be ${typeText(upstream.type)} but received ${typeText(type)}`,
      );
    const given = node.defaultValue ? print(node.defaultValue) : null;
    const expected = normalDefault(upstream.defaultValue);
    if (given !== expected)
      this.v.dispute(
        `expected default value of input value: ${dq(name)}of input object ${dq(parent)} to be ${expected ?? ""} but received ${given ?? ""}`,
      );
    const value = preset ? presetFromDirective(this.v, this.lookupInput, node.type, name, preset) : undefined;
    return { name, description: describe(node), type, defaultValue: given, ...(value ? { preset: value } : {}) };
  }

  /** validateArguments: of a field, or the fields of an input object (`parent` names it). */
  private args(nodes: readonly InputValueDefinitionNode[], upstream: RemoteInputValue[], parent: string): RemoteInputValue[] {
    const twice = duplicates(nodes.map((a) => a.name.value));
    if (twice.length > 0) this.v.refute(`duplicate arguments: ${englishList(twice.map(dq))}found in the field: ${dq(parent)}`);
    const requiredGiven = new Set(nodes.filter((a) => a.type.kind === Kind.NON_NULL_TYPE).map((a) => a.name.value));
    const missing = upstream.filter((a) => !a.type.nullable && !requiredGiven.has(a.name)).map((a) => a.name);
    if (missing.length > 0)
      this.v.refute(`field: ${dq(parent)} expects the following non nullable arguments to be present: ${englishList(missing.map(dq))}`);
    return this.v.each(nodes, (node) => {
      const own = upstream.find((a) => a.name === node.name.value);
      if (!own) this.v.refute(`input argument ${dq(node.name.value)} does not exist in the input object:${dq(parent)}`);
      return this.inputValue(node, own as RemoteInputValue, parent);
    });
  }

  private fields(
    nodes: readonly FieldDefinitionNode[],
    upstream: RemoteFieldDef[],
    parentType: "Object" | "Interface",
    parent: string,
  ): RemoteFieldDef[] {
    const twice = duplicates(nodes.map((f) => f.name.value));
    if (twice.length > 0) this.v.refute(`duplicate fields: ${englishList(twice.map(dq))}found in the ${dq(parentType)} ${dq(parent)}`);
    return this.v.each(nodes, (node) => {
      const name = node.name.value;
      const own = upstream.find((f) => f.name === name);
      if (!own) this.v.refute(`field ${dq(name)} does not exist in the ${dq(parentType)}: ${dq(parent)}`);
      this.directives(node.directives, "FIELD_DEFINITION", [`${parentType} field`, parent]);
      const type = typeRefOf(node.type);
      const expected = (own as RemoteFieldDef).type;
      if (typeText(type) !== typeText(expected))
        this.v.dispute(
          `expected type of ${dq(name)}(${dq(`${parentType} field`)}) to be ${typeText(expected)} but received ${typeText(type)}`,
        );
      const args = this.args(node.arguments ?? [], (own as RemoteFieldDef).args, name);
      return { name, description: describe(node), args, type };
    });
  }

  type(node: TypeDefinitionNode, declaredInterfaces: Set<string>): RemoteTypeDef {
    const name = node.name.value;
    const description = describe(node);
    switch (node.kind) {
      case Kind.SCALAR_TYPE_DEFINITION:
        if (!BUILT_IN_SCALARS.includes(name)) {
          this.found("SCALAR", "Scalar", name);
          this.directives(node.directives, "SCALAR", ["Scalar", name]);
        }
        return { kind: "SCALAR", name, description };
      case Kind.INTERFACE_TYPE_DEFINITION: {
        const upstream = this.found("INTERFACE", "Interface", name);
        this.directives(node.directives, "INTERFACE", ["Interface", name]);
        const fields = this.fields(node.fields ?? [], upstream.fields, "Interface", name);
        return { kind: "INTERFACE", name, description, fields, possibleTypes: [] };
      }
      case Kind.OBJECT_TYPE_DEFINITION: {
        const upstream = this.found("OBJECT", "Object", name);
        this.directives(node.directives, "OBJECT", ["Object", name]);
        const interfaces = (node.interfaces ?? []).map((i) => i.name.value);
        const custom = interfaces.filter((i) => !upstream.interfaces.includes(i) && declaredInterfaces.has(i));
        if (custom.length > 0)
          this.v.dispute(
            `custom interfaces are not supported. Object${dq(name)} implements the following custom interfaces: ${englishList(custom.map(dq))}`,
          );
        const fields = this.fields(node.fields ?? [], upstream.fields, "Object", name);
        return { kind: "OBJECT", name, description, fields, interfaces };
      }
      case Kind.UNION_TYPE_DEFINITION: {
        const upstream = this.found("UNION", "Union", name);
        this.directives(node.directives, "UNION", ["Union", name]);
        const members = (node.types ?? []).map((t) => t.name.value);
        const unknown = members.filter((m) => !upstream.possibleTypes.includes(m));
        if (unknown.length > 0)
          this.v.refute(
            `union ${dq(name)} contains members which do not exist in the members of the remote schema union :${englishList(unknown.map(dq))}`,
          );
        return { kind: "UNION", name, description, possibleTypes: members };
      }
      case Kind.ENUM_TYPE_DEFINITION: {
        const upstream = this.found("ENUM", "Enum", name);
        this.directives(node.directives, "ENUM", ["Enum", name]);
        const values = (node.values ?? []).map((v) => v.name.value);
        const twice = duplicates(values);
        if (twice.length > 0) this.v.refute(`duplicate enum values: ${englishList(twice.map(dq))} found in the ${dq(name)} enum`);
        const unknown = values.filter((v) => !upstream.values.some((u) => u.name === v));
        if (unknown.length > 0)
          this.v.dispute(
            `enum ${dq(name)} contains the following enum values that do not exist in the corresponding upstream remote enum: ${englishList(unknown.map(dq))}`,
          );
        return {
          kind: "ENUM",
          name,
          description,
          values: (node.values ?? []).map((v) => ({ name: v.name.value, description: describe(v) })),
        };
      }
      case Kind.INPUT_OBJECT_TYPE_DEFINITION: {
        const upstream = this.found("INPUT_OBJECT", "Input object", name);
        this.directives(node.directives, "INPUT_OBJECT", ["Input object", name]);
        return { kind: "INPUT_OBJECT", name, description, fields: this.args(node.fields ?? [], upstream.fields, name) };
      }
    }
  }
}

const TYPE_DEFINITIONS = new Set<string>([
  Kind.SCALAR_TYPE_DEFINITION,
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.UNION_TYPE_DEFINITION,
  Kind.ENUM_TYPE_DEFINITION,
  Kind.INPUT_OBJECT_TYPE_DEFINITION,
]);

function defaultScalar(name: string): TypeDefinitionNode {
  return { kind: Kind.SCALAR_TYPE_DEFINITION, name: { kind: Kind.NAME, value: name } };
}

/** The role's view of `upstream` that `document` describes; throws RoleSchemaInvalid with Hasura's reasons. */
export function validateRoleSchema(upstream: RemoteIntrospection, document: DocumentNode): RemoteIntrospection {
  const typeNodes = [
    ...document.definitions.filter((d): d is TypeDefinitionNode => TYPE_DEFINITIONS.has(d.kind)),
    ...BUILT_IN_SCALARS.map(defaultScalar),
  ];
  const schemaNodes = document.definitions.filter((d) => d.kind === Kind.SCHEMA_DEFINITION);
  const lookupInput: InputTypeLookup = (name) => typeNodes.find((t) => t.name.value === name);
  const checker = new RoleSchemaChecker(upstream, lookupInput);
  const { v } = checker;
  let types: RemoteTypeDef[] = [];
  const roots: Record<string, string> = {};
  try {
    const twice = duplicates(typeNodes.map((t) => t.name.value));
    if (twice.length > 0) v.refute(`duplicate type names found: ${englishList(twice.map(dq))}`);
    if (schemaNodes.length > 1) v.refute("multiple schema definitions found");
    for (const op of schemaNodes[0]?.operationTypes ?? []) roots[op.operation] = op.type.name.value;
    const interfaces = new Set(typeNodes.filter((t) => t.kind === Kind.INTERFACE_TYPE_DEFINITION).map((t) => t.name.value));
    types = v.each(typeNodes, (node) => checker.type(node, interfaces));
  } catch (error) {
    if (!(error instanceof Refuted)) throw error;
  }
  if (v.reasons.length > 0) throw new RoleSchemaInvalid(v.reasons);
  return viewOf(types, roots);
}

/** Hasura's getSchemaDocIntrospection: interfaces' members are the document's objects implementing them. */
function viewOf(types: RemoteTypeDef[], roots: Record<string, string>): RemoteIntrospection {
  const objects = types.filter((t): t is ObjectDef => t.kind === "OBJECT");
  const map = new Map<string, RemoteTypeDef>();
  let presets = false;
  for (const t of types) {
    if (t.kind === "INTERFACE")
      map.set(t.name, { ...t, possibleTypes: objects.filter((o) => o.interfaces.includes(t.name)).map((o) => o.name) });
    else map.set(t.name, t);
    const values =
      t.kind === "INPUT_OBJECT" ? t.fields : t.kind === "OBJECT" || t.kind === "INTERFACE" ? t.fields.flatMap((f) => f.args) : [];
    if (values.some((value) => value.preset)) presets = true;
  }
  const defaultRoot = (name: string) => (map.get(name)?.kind === "OBJECT" ? name : null);
  return {
    types: map,
    queryRoot: roots.query ?? "Query",
    mutationRoot: roots.mutation ?? defaultRoot("Mutation"),
    subscriptionRoot: roots.subscription ?? defaultRoot("Subscription"),
    ...(presets ? { presets } : {}),
  };
}
