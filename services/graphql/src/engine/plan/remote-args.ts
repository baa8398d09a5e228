/**
 * A remote field's arguments as the remote is sent them for a role whose view of the remote
 * presets some (https://hasura.io/docs/2.0/remote-schemas/auth/remote-schema-permissions/#argument-presets),
 * as Hasura's remote input parsers insert them (Note [Variable expansion in remote schema input
 * parsers] in server/src-lib/Hasura/GraphQL/Schema/Remote.hs): a preset argument or input field
 * is sent its preset; an input object the role can give nothing of is sent whole from its
 * presets; a variable whose value must get a preset inside it is expanded, its parts that need
 * none sent as variables of their own (`hasura_json_var_N`, typed as the remote types them).
 * Values that need no preset are sent as the caller wrote them. A session variable preset
 * becomes a variable (`$x_hasura_user_id`) the executor fills from the session
 * (remote/session-presets.ts).
 */
import { type ArgumentNode, Kind, type ObjectFieldNode, type TypeNode, type ValueNode, type VariableDefinitionNode } from "graphql";
import type { TypeRef } from "../model/types.js";
import { onlyPresets } from "../remote/permission.js";
import type { PresetValue, RemoteFieldDef, RemoteInputValue, RemoteIntrospection } from "../remote/types.js";
import { typeText } from "../remote/validate.js";
import type { SessionPreset } from "./types.js";
import type { Variables } from "./values.js";

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const baseName = (t: TypeRef): string => (t.kind === "named" ? t.name : baseName(t.of));

/** A type of the remote's as a variable definition writes it. */
export function typeNode(type: TypeRef): TypeNode {
  const inner: TypeNode =
    type.kind === "named" ? { kind: Kind.NAMED_TYPE, name: name(type.name) } : { kind: Kind.LIST_TYPE, type: typeNode(type.of) };
  return type.nullable ? inner : { kind: Kind.NON_NULL_TYPE, type: inner as Exclude<TypeNode, { kind: Kind.NON_NULL_TYPE }> };
}

/** A session variable as a GraphQL variable name (`x-hasura-user-id` -> `x_hasura_user_id`, Hasura's sessionVariableToGraphQLName). */
const variableName = (session: string) => session.replace(/[^_0-9A-Za-z]/g, "_");

export class RemoteArguments {
  /** Session variable presets met, by the GraphQL variable they are sent as. */
  readonly sessionPresets = new Map<string, SessionPreset>();
  /** Variables made from parts of expanded variables: their definitions and values. */
  readonly definitions: VariableDefinitionNode[] = [];
  readonly values: Record<string, unknown> = {};
  private readonly jsonVariables = new Map<string, string>();
  private readonly altered = new Map<string, boolean>();

  constructor(
    private readonly view: RemoteIntrospection,
    /** The request's variable values. */
    private readonly variables: Variables,
    /** Called for every request variable still named in what is sent. */
    private readonly noteVariables: (value: ValueNode) => void,
  ) {}

  /** The arguments sent for `given`, the caller's arguments of the view's field `def`. */
  field(given: readonly ArgumentNode[] | undefined, def: RemoteFieldDef | undefined): ArgumentNode[] {
    const args = given ?? [];
    if (!this.view.presets || !def) {
      for (const a of args) this.noteVariables(a.value);
      return [...args];
    }
    const out: ArgumentNode[] = [];
    for (const arg of def.args) {
      const value = this.member(arg, args.find((a) => a.name.value === arg.name)?.value);
      if (value) out.push({ kind: Kind.ARGUMENT, name: name(arg.name), value });
    }
    return out;
  }

  /** What an argument or input field is sent: its preset, the caller's value, or the presets of a type the caller cannot give. */
  private member(def: RemoteInputValue, given: ValueNode | undefined): ValueNode | undefined {
    if (def.preset) return this.preset(def.preset);
    if (given) return this.value(given, def.type);
    return this.presetsOnly(def.type);
  }

  private jsonMember(def: RemoteInputValue, given: unknown): ValueNode | undefined {
    if (def.preset) return this.preset(def.preset);
    if (given !== undefined) return this.fromJson(given, def.type);
    return this.presetsOnly(def.type);
  }

  private inputObject(type: TypeRef) {
    const def = this.view.types.get(baseName(type));
    return def?.kind === "INPUT_OBJECT" ? def : undefined;
  }

  /** Whether values of `type` get a preset somewhere inside. */
  private alters(type: TypeRef): boolean {
    const def = this.inputObject(type);
    if (!def) return false;
    const known = this.altered.get(def.name);
    if (known !== undefined) return known;
    this.altered.set(def.name, false);
    const alters = def.fields.some((f) => f.preset !== undefined || this.alters(f.type));
    this.altered.set(def.name, alters);
    return alters;
  }

  /** An input object whose every field is preset (or of such a type): the role cannot give it, its presets are sent. */
  private presetsOnly(type: TypeRef): ValueNode | undefined {
    if (!onlyPresets(this.view, baseName(type))) return undefined;
    const def = this.inputObject(type);
    const fields = (def?.fields ?? []).map(
      (f): ObjectFieldNode => ({
        kind: Kind.OBJECT_FIELD,
        name: name(f.name),
        value: f.preset ? this.preset(f.preset) : (this.presetsOnly(f.type) as ValueNode),
      }),
    );
    return { kind: Kind.OBJECT, fields };
  }

  private value(node: ValueNode, type: TypeRef): ValueNode | undefined {
    if (!this.alters(type) || node.kind === Kind.NULL) {
      this.noteVariables(node);
      return node;
    }
    if (node.kind === Kind.VARIABLE) return this.fromJson(this.variables[node.name.value], type);
    if (type.kind === "list")
      return node.kind === Kind.LIST
        ? { kind: Kind.LIST, values: node.values.map((v) => this.value(v, type.of) ?? { kind: Kind.NULL }) }
        : this.value(node, type.of);
    const def = this.inputObject(type);
    if (!def || node.kind !== Kind.OBJECT) {
      this.noteVariables(node);
      return node;
    }
    const fields: ObjectFieldNode[] = [];
    for (const f of def.fields) {
      const value = this.member(f, node.fields.find((x) => x.name.value === f.name)?.value);
      if (value) fields.push({ kind: Kind.OBJECT_FIELD, name: name(f.name), value });
    }
    return { kind: Kind.OBJECT, fields };
  }

  /** A variable's value expanded where presets go inside it; its other parts become variables of their own. */
  private fromJson(json: unknown, type: TypeRef): ValueNode | undefined {
    if (json === undefined) return undefined;
    if (json === null) return { kind: Kind.NULL };
    if (!this.alters(type)) return this.jsonVariable(json, type);
    if (type.kind === "list")
      return Array.isArray(json)
        ? { kind: Kind.LIST, values: json.map((v) => this.fromJson(v, type.of) ?? { kind: Kind.NULL }) }
        : this.fromJson(json, type.of);
    const def = this.inputObject(type);
    if (!def || typeof json !== "object" || Array.isArray(json)) return this.jsonVariable(json, type);
    const object = json as Record<string, unknown>;
    const fields: ObjectFieldNode[] = [];
    for (const f of def.fields) {
      const value = this.jsonMember(f, object[f.name]);
      if (value) fields.push({ kind: Kind.OBJECT_FIELD, name: name(f.name), value });
    }
    return { kind: Kind.OBJECT, fields };
  }

  private jsonVariable(json: unknown, type: TypeRef): ValueNode {
    const key = JSON.stringify([typeText(type), json]);
    let variable = this.jsonVariables.get(key);
    if (!variable) {
      variable = `hasura_json_var_${this.jsonVariables.size + 1}`;
      this.jsonVariables.set(key, variable);
      this.definitions.push({
        kind: Kind.VARIABLE_DEFINITION,
        variable: { kind: Kind.VARIABLE, name: name(variable) },
        type: typeNode(type),
      });
      this.values[variable] = json;
    }
    return { kind: Kind.VARIABLE, name: name(variable) };
  }

  private preset(preset: PresetValue): ValueNode {
    switch (preset.kind) {
      case "literal":
        return preset.value;
      case "list":
        return { kind: Kind.LIST, values: preset.values.map((v) => this.preset(v)) };
      case "object":
        return {
          kind: Kind.OBJECT,
          fields: preset.fields.map((f) => ({ kind: Kind.OBJECT_FIELD, name: name(f.name), value: this.preset(f.value) })),
        };
      case "session":
        return { kind: Kind.VARIABLE, name: name(this.sessionVariable(preset)) };
    }
  }

  /** The variable a session preset is sent as; the same session variable read as another type gets a name of its own. */
  private sessionVariable(preset: Extract<PresetValue, { kind: "session" }>): string {
    let variable = variableName(preset.variable);
    for (let i = 2; ; i++) {
      const known = this.sessionPresets.get(variable);
      if (!known) break;
      if (known.type === preset.type && known.variable === preset.variable) return variable;
      variable = `${variableName(preset.variable)}_${i}`;
    }
    this.sessionPresets.set(variable, { name: variable, variable: preset.variable, type: preset.type, enumValues: preset.enumValues });
    return variable;
  }
}
