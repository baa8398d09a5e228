/**
 * Planning an action's root field: its input (the arguments as given) and what is selected of
 * its output: fields of the handler's answer, nested objects, and relationships from output
 * objects to tables, planned as the table's own relationships are.
 */
import { type GraphQLObjectType, getNamedType, isObjectType } from "graphql";
import { fieldNotFound, jsonPath, relationshipMissing, unexpectedField } from "../errors/index.js";
import type { ActionModel } from "../model/types.js";
import { definitionOf, objectTypeOf, type PlanContext, type SchemaField } from "./context.js";
import type { Collected } from "./fields.js";
import { planRelationship } from "./select.js";
import type { ActionNode, AsyncActionField, AsyncQueryNode, OutputField, Path } from "./types.js";

const at = (path: Path, f: Collected): Path => [...path, "selectionSet", f.responseKey];

/** The selection of an output object of `type`. */
function planOutputFields(ctx: PlanContext, fields: Collected[], type: GraphQLObjectType, path: Path): OutputField[] {
  const object = ctx.model.customTypes.objects.get(type.name);
  return fields.map((f): OutputField => {
    const key = f.responseKey;
    if (f.name === "__typename") return { kind: "typename", key, typeName: type.name };
    const here = at(path, f);
    const found = definitionOf(type, f.name);
    if (!found) throw fieldNotFound(f.name, type.name, jsonPath(here));
    const { def, info } = found;
    switch (info.kind) {
      case "output_field":
        return { kind: "output_field", key, field: info.field, fields: nestedFields(ctx, f, def, here) };
      case "object_rel":
      case "array_rel":
      case "array_rel_aggregate": {
        const rel = object?.relationships.find((r) => r.name === info.rel);
        if (!rel) throw relationshipMissing(info.rel);
        return planRelationship(ctx, info.kind, rel, f, def, here);
      }
      default:
        throw unexpectedField(f.name, type.name);
    }
  });
}

/** The selection of a field whose type is an output object (null for a scalar or enum field). */
function nestedFields(ctx: PlanContext, f: Collected, def: SchemaField, path: Path): OutputField[] | null {
  const type = getNamedType(def.type);
  return isObjectType(type) ? planOutputFields(ctx, ctx.subFields(f, type), type, path) : null;
}

/** An action's root field. */
export function planAction(ctx: PlanContext, action: ActionModel, field: Collected, def: SchemaField): ActionNode {
  const path = ["selectionSet", field.responseKey];
  return { kind: "action", key: field.responseKey, action, input: ctx.args(field, def), fields: nestedFields(ctx, field, def, path), path };
}

/** An asynchronous action's query field: which log entry, and what is selected of it. */
export function planAsyncQuery(ctx: PlanContext, action: ActionModel, field: Collected, def: SchemaField): AsyncQueryNode {
  const path = ["selectionSet", field.responseKey];
  const type = objectTypeOf(def);
  const fields = ctx.subFields(field, type).map((f): AsyncActionField => {
    const key = f.responseKey;
    if (f.name === "__typename") return { kind: "typename", key, typeName: type.name };
    const found = definitionOf(type, f.name);
    if (found?.info.kind !== "async_field") throw fieldNotFound(f.name, type.name, jsonPath(at(path, f)));
    if (found.info.field === "output") return { kind: "async_output", key, fields: nestedFields(ctx, f, found.def, at(path, f)) };
    return { kind: "async_field", key, field: found.info.field };
  });
  return { kind: "async_action_query", key: field.responseKey, action, id: ctx.args(field, def).id, fields, path };
}
