/** What planning one operation reads: the model, the role, the request's variables (or their slots) and the document's fragments. */
import { type GraphQLField, type GraphQLObjectType, getNamedType, isObjectType, type OperationDefinitionNode } from "graphql";
import { noSelectionSet, untrackedTable } from "../errors/index.js";
import type { Model, TableModel } from "../model/types.js";
import { type FieldInfo, fieldInfo } from "../schema/field-info.js";
import { type Collected, collectFields, type Fragments } from "./fields.js";
import type { Args } from "./types.js";
import { argumentValues, type Variables } from "./values.js";

export type SchemaField = GraphQLField<unknown, unknown>;

export class PlanContext {
  constructor(
    readonly model: Model,
    /** The session's role: what it sees of remote schemas (their permissions' views and presets). */
    readonly role: string,
    readonly variables: Variables,
    readonly fragments: Fragments,
    /** The operation planned: remote schemas are sent its name and the definitions of the variables they use. */
    readonly operation?: OperationDefinitionNode,
  ) {}

  table(key: string): TableModel {
    const table = this.model.tables.get(key);
    if (!table) throw untrackedTable(key);
    return table;
  }

  /** The fields selected under `field` on its object type. */
  subFields(field: Collected, type: GraphQLObjectType): Collected[] {
    return collectFields(field.selections, type.name, this.fragments, this.variables);
  }

  /** The field's arguments, shaped by their definitions. */
  args(field: Collected, def: SchemaField | undefined): Args {
    return argumentValues(field.node.arguments, this.variables, def?.args);
  }
}

/** The object type a field selects from (a scalar field with a selection set is refused). */
export function objectTypeOf(def: SchemaField): GraphQLObjectType {
  const type = getNamedType(def.type);
  if (!isObjectType(type)) throw noSelectionSet(def.name);
  return type;
}

/** A selected field's definition on `type` and what the schema says it reads (undefined for fields it does not know). */
export function definitionOf(type: GraphQLObjectType, name: string): { def: SchemaField; info: FieldInfo } | undefined {
  const def = type.getFields()[name];
  const info = def ? fieldInfo(def.extensions) : undefined;
  return def && info ? { def, info } : undefined;
}
