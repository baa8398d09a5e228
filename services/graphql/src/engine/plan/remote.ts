/**
 * Planning a remote schema's root field: the field as the remote must be sent it, in the remote's
 * own names. Customized field and type names are mapped back (a field whose name changed is
 * aliased to its response key, so the answer needs no renaming), fragments become inline
 * fragments on the remote's types, @skip/@include are applied, and the variables the field uses
 * are kept with their definitions (type names mapped back too). `__typename`s are sent as they are
 * and noted, for the executor to give their answers our names (Hasura's ResultCustomizer,
 * server/src-lib/Hasura/GraphQL/Schema/Remote.hs). Under a `root_fields_namespace`, each field of
 * the namespace is a call of its own and its `__typename` is answered here.
 */
import {
  type FieldNode,
  type GraphQLObjectType,
  Kind,
  type NameNode,
  type SelectionNode,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from "graphql";
import { remoteSchemaMissing } from "../errors/index.js";
import type { TypeRef } from "../model/types.js";
import { relationshipField, remoteView } from "../remote/permission.js";
import type { RemoteRelationshipModel } from "../remote/relationships.js";
import type { RemoteCustomizer, RemoteFieldDef, RemoteIntrospection, RemoteSchemaModel } from "../remote/types.js";
import { definitionOf, objectTypeOf, type PlanContext } from "./context.js";
import { type Collected, included } from "./fields.js";
import { RemoteArguments } from "./remote-args.js";
import type { Path, RemoteCall, RemoteJoinNode, RemoteNode, TypenameNode, TypenameTree } from "./types.js";

const name = (value: string): NameNode => ({ kind: Kind.NAME, value });
const baseName = (t: TypeRef): string => (t.kind === "named" ? t.name : baseName(t.of));

interface Reverse {
  types: Map<string, string>;
  fields: Map<string, Map<string, string>>;
}

const reversed = new WeakMap<RemoteCustomizer, Reverse>();

/** Our names -> the remote's, per customizer. */
function reverse(c: RemoteCustomizer): Reverse {
  let found = reversed.get(c);
  if (!found) {
    const flip = (m: Map<string, string>) => new Map([...m].map(([k, v]) => [v, k]));
    found = { types: flip(c.typeNames), fields: new Map([...c.fieldNames].map(([t, m]) => [t, flip(m)])) };
    reversed.set(c, found);
  }
  return found;
}

/** What the planning role sees of `remote` (its schema had the field, so it sees the remote). */
function viewOf(ctx: PlanContext, remote: RemoteSchemaModel): RemoteIntrospection {
  const view = remoteView(remote, ctx.role, ctx.model.remoteSchemaPermissions);
  if (!view) throw remoteSchemaMissing(remote.name);
  return view;
}

/** Walks selections of our schema into the remote's, noting variables and `__typename`s, adding the role's presets. */
class Translator {
  readonly variables = new Set<string>();
  private readonly names: Reverse;
  readonly arguments: RemoteArguments;

  constructor(
    private readonly ctx: PlanContext,
    private readonly remote: RemoteSchemaModel,
    readonly view: RemoteIntrospection,
  ) {
    this.names = reverse(remote.customizer);
    this.arguments = new RemoteArguments(view, ctx.variables, (value) => this.noteVariables(value));
  }

  /** The remote's name of our type `ours`, or null when our schema has no such type of this remote. */
  private typeName(ours: string): string | null {
    const renamed = this.names.types.get(ours);
    if (renamed !== undefined) return renamed;
    const own = this.view.types.has(ours) && (this.remote.customizer.typeNames.get(ours) ?? ours) === ours;
    return own ? ours : null;
  }

  /** The remote's field of `parent` (the remote's type name) that our `field` name is. */
  fieldName(parent: string, field: string): string {
    return this.names.fields.get(parent)?.get(field) ?? field;
  }

  /** The field `field` of the remote's type `parent`, as the role sees it. */
  fieldDef(parent: string, field: string): RemoteFieldDef | undefined {
    const def = this.view.types.get(parent);
    if (def?.kind !== "OBJECT" && def?.kind !== "INTERFACE") return undefined;
    return def.fields.find((x) => x.name === field);
  }

  private noteVariables(value: ValueNode): void {
    if (value.kind === Kind.VARIABLE) this.variables.add(value.name.value);
    else if (value.kind === Kind.LIST) for (const v of value.values) this.noteVariables(v);
    else if (value.kind === Kind.OBJECT) for (const f of value.fields) this.noteVariables(f.value);
  }

  /** The selections sent for `selections` on the remote's type `parent`; `tree` gets their `__typename`s. */
  selections(selections: readonly SelectionNode[], parent: string, tree: TypenameTree): SelectionNode[] {
    const out: SelectionNode[] = [];
    for (const selection of selections) {
      if (!included(selection.directives, this.ctx.variables)) continue;
      if (selection.kind === Kind.FIELD) {
        out.push(this.field(selection, parent, tree));
        continue;
      }
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : this.ctx.fragments[selection.name.value];
      if (!fragment) continue;
      const condition = fragment.typeCondition ? this.typeName(fragment.typeCondition.name.value) : parent;
      // A condition naming no type of ours (validation lets an inline fragment's through) selects nothing.
      if (condition === null) continue;
      out.push({
        kind: Kind.INLINE_FRAGMENT,
        typeCondition: { kind: Kind.NAMED_TYPE, name: name(condition) },
        selectionSet: { kind: Kind.SELECTION_SET, selections: this.selections(fragment.selectionSet.selections, condition, tree) },
      });
    }
    return out;
  }

  private field(node: FieldNode, parent: string, tree: TypenameTree): FieldNode {
    const key = node.alias?.value ?? node.name.value;
    if (node.name.value === "__typename") {
      tree.set(key, "typename");
      return { kind: Kind.FIELD, ...(node.alias ? { alias: node.alias } : {}), name: name("__typename") };
    }
    const remoteName = this.fieldName(parent, node.name.value);
    return this.sent(node, key, remoteName, node.selectionSet?.selections ?? [], this.fieldDef(parent, remoteName), tree);
  }

  /** The field `remoteName` (`def` in the view) sent, aliased to `key` when they differ, with its selections. */
  sent(
    node: FieldNode,
    key: string,
    remoteName: string,
    selections: readonly SelectionNode[],
    def: RemoteFieldDef | undefined,
    tree: TypenameTree,
  ): FieldNode {
    let selectionSet: FieldNode["selectionSet"];
    const type = def ? baseName(def.type) : null;
    if (selections.length > 0 && type !== null) {
      const existing = tree.get(key);
      const child: TypenameTree = existing instanceof Map ? existing : new Map();
      tree.set(key, child);
      selectionSet = { kind: Kind.SELECTION_SET, selections: this.selections(selections, type, child) };
    }
    return {
      kind: Kind.FIELD,
      ...(key !== remoteName ? { alias: name(key) } : {}),
      name: name(remoteName),
      arguments: this.arguments.field(node.arguments, def),
      ...(selectionSet ? { selectionSet } : {}),
    };
  }

  /** A variable's type in the remote's names. */
  private typeNode(type: TypeNode): TypeNode {
    if (type.kind === Kind.NAMED_TYPE)
      return { kind: Kind.NAMED_TYPE, name: name(this.names.types.get(type.name.value) ?? type.name.value) };
    if (type.kind === Kind.LIST_TYPE) return { kind: Kind.LIST_TYPE, type: this.typeNode(type.type) };
    return { kind: Kind.NON_NULL_TYPE, type: this.typeNode(type.type) as Exclude<TypeNode, { kind: Kind.NON_NULL_TYPE }> };
  }

  /** The definitions and values of the variables noted, and of those made for the role's presets. */
  variableDefinitions(): { definitions: VariableDefinitionNode[]; values: Record<string, unknown> } {
    const definitions: VariableDefinitionNode[] = [...this.arguments.definitions];
    const values: Record<string, unknown> = { ...this.arguments.values };
    for (const def of this.ctx.operation?.variableDefinitions ?? []) {
      const variable = def.variable.name.value;
      if (!this.variables.has(variable)) continue;
      definitions.push({ ...def, type: this.typeNode(def.type), directives: [] });
      const value = this.ctx.variables[variable];
      if (value !== undefined) values[variable] = value;
    }
    return { definitions, values };
  }
}

/** One call to the remote: `field` as its root field `remoteName` of the remote's root type `root`. */
function remoteCall(ctx: PlanContext, remote: RemoteSchemaModel, root: string, remoteName: string, field: Collected): RemoteCall {
  const translator = new Translator(ctx, remote, viewOf(ctx, remote));
  const typenames: TypenameTree = new Map();
  const selections = field.selections.flatMap((s) => s.selections);
  const sent = translator.sent(field.node, field.responseKey, remoteName, selections, translator.fieldDef(root, remoteName), typenames);
  const { definitions, values } = translator.variableDefinitions();
  return {
    kind: "remote_call",
    key: field.responseKey,
    field: sent,
    variables: definitions,
    values,
    operationName: ctx.operation?.name?.value ?? null,
    typenames,
    sessionPresets: [...translator.arguments.sessionPresets.values()],
  };
}

/** The remote root field a field of query_root or mutation_root is, if it is one. */
export function planRemoteField(
  ctx: PlanContext,
  root: GraphQLObjectType,
  field: Collected,
  operation: "query" | "mutation",
): RemoteNode | undefined {
  const found = definitionOf(root, field.name);
  const info = found?.info;
  if (!found || (info?.kind !== "remote" && info?.kind !== "remote_namespace")) return undefined;
  const remote = ctx.model.remoteSchemas?.find((r) => r.name === info.remote);
  if (!remote) throw remoteSchemaMissing(info.remote);
  const view = viewOf(ctx, remote);
  const rootType = (operation === "query" ? view.queryRoot : view.mutationRoot) ?? view.queryRoot;
  const node = { kind: "remote" as const, key: field.responseKey, remote, operation, path: ["selectionSet", field.responseKey] };
  if (info.kind === "remote") return { ...node, namespaced: false, fields: [remoteCall(ctx, remote, rootType, info.field, field)] };
  const type = objectTypeOf(found.def);
  const fields = ctx.subFields(field, type).map((sub): TypenameNode | RemoteCall => {
    if (sub.name === "__typename") return { kind: "typename", key: sub.responseKey, typeName: type.name };
    const subInfo = definitionOf(type, sub.name)?.info;
    return remoteCall(ctx, remote, rootType, subInfo?.kind === "remote" ? subInfo.field : sub.name, sub);
  });
  return { ...node, namespaced: true, fields };
}

/** Whether a subscription selects a remote schema's field (Hasura refuses those: remote subscriptions are not supported). */
export function selectsRemoteField(root: GraphQLObjectType, fields: Collected[]): boolean {
  return fields.some((f) => {
    const kind = definitionOf(root, f.name)?.info.kind;
    return kind === "remote" || kind === "remote_namespace";
  });
}

/** A table's remote relationship selected on a row: its field as the remote is sent it, without the fixed arguments. */
export function planRemoteJoin(ctx: PlanContext, rel: RemoteRelationshipModel, field: Collected, path: Path): RemoteJoinNode {
  const view = viewOf(ctx, rel.remote);
  const translator = new Translator(ctx, rel.remote, view);
  const typenames: TypenameTree = new Map();
  const selections = field.selections.flatMap((s) => s.selections);
  const remoteName = rel.field.name;
  const sent = translator.sent(field.node, remoteName, remoteName, selections, relationshipField(rel, view) ?? rel.field, typenames);
  // The request's own variables are read when the join is made (the plan may serve other requests of its shape).
  const { definitions } = translator.variableDefinitions();
  const values = translator.arguments.values;
  const sessionPresets = [...translator.arguments.sessionPresets.values()];
  return { kind: "remote_rel", key: field.responseKey, rel, field: sent, variables: definitions, values, typenames, path, sessionPresets };
}
