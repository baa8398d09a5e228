/**
 * Planning a table's insert, update or delete: the objects to insert with their nested inserts
 * resolved against the table's relationships (object relationships written before the row,
 * array relationships after it), the changes of each update, and what the field answers.
 */
import type { GraphQLObjectType } from "graphql";
import { columnsDeterminedByParent, jsonPath, objectRelationshipDetermined } from "../errors/index.js";
import type { TableModel } from "../model/types.js";
import type { MutationKind } from "../schema/field-info.js";
import { definitionOf, objectTypeOf, type PlanContext } from "./context.js";
import type { Collected } from "./fields.js";
import { planRowFields } from "./select.js";
import type { Args, InsertObject, MutationField, MutationOutput, MutationResponseField, Path } from "./types.js";
import { asList } from "./values.js";

interface NestedInsert {
  data: Args | Args[];
  on_conflict?: Args;
}

/** One object to insert, and its nested inserts; `forced` are the columns its parent row determines. */
function insertObject(
  ctx: PlanContext,
  table: TableModel,
  input: Args,
  onConflict: Args | undefined,
  path: Path,
  conflictPath: Path,
  forced: readonly string[] = [],
): InsertObject {
  for (const name of forced) {
    const field = table.columnByName.get(name)?.field ?? name;
    if (field in input) throw columnsDeterminedByParent(field, jsonPath(path));
  }
  const object: InsertObject = { table, columns: {}, parents: [], children: [], onConflict, path, conflictPath };
  for (const [key, value] of Object.entries(input)) {
    if (table.columnByField.has(key)) object.columns[key] = value;
    const rel = table.relationships.get(key);
    if (!rel || value === null) continue;
    const nested = value as NestedInsert;
    const target = ctx.table(rel.target);
    const relPath = [...path, rel.name];
    if (rel.insertAfter) {
      const many = Array.isArray(nested.data);
      const objects = (asList(nested.data) as Args[]).map((child, i) =>
        insertObject(
          ctx,
          target,
          child,
          nested.on_conflict,
          many ? [...relPath, "data", i] : [...relPath, "data"],
          [...relPath, "on_conflict"],
          rel.mapping.map(([, remote]) => remote),
        ),
      );
      object.children.push({ rel, objects });
    } else if (rel.kind === "object") {
      for (const [local] of rel.mapping) {
        const column = table.columnByName.get(local);
        if (column && column.field in input) throw objectRelationshipDetermined(rel.name, column.field, jsonPath(relPath));
      }
      const parent = insertObject(ctx, target, nested.data as Args, nested.on_conflict, [...relPath, "data"], [...relPath, "on_conflict"]);
      object.parents.push({ rel, object: parent });
    }
  }
  return object;
}

/** What `affected_rows` / `returning` (or the one row of `*_one` and `*_by_pk`) select. */
function planOutput(
  ctx: PlanContext,
  table: TableModel,
  field: Collected,
  type: GraphQLObjectType,
  single: boolean,
  path: Path,
): MutationOutput {
  const selected = ctx.subFields(field, type);
  if (single) return { kind: "row", fields: planRowFields(ctx, table, selected, type, path), path };
  const fields: MutationResponseField[] = [];
  for (const f of selected) {
    const key = f.responseKey;
    if (f.name === "__typename") fields.push({ kind: "typename", key, typeName: type.name });
    const found = f.name === "__typename" ? undefined : definitionOf(type, f.name);
    if (found?.info.kind === "affected_rows") fields.push({ kind: "affected_rows", key });
    else if (found?.info.kind === "returning") {
      const here = [...path, "selectionSet", key];
      const rowType = objectTypeOf(found.def);
      fields.push({ kind: "returning", key, fields: planRowFields(ctx, table, ctx.subFields(f, rowType), rowType, here), path: here });
    }
  }
  return { kind: "response", fields, path };
}

export function planTableMutation(
  ctx: PlanContext,
  kind: MutationKind,
  table: TableModel,
  args: Args,
  field: Collected,
  type: GraphQLObjectType,
  path: Path,
): MutationField {
  const key = field.responseKey;
  const single = kind === "insert_one" || kind === "update_by_pk" || kind === "delete_by_pk";
  const output = planOutput(ctx, table, field, type, single, path);
  switch (kind) {
    case "insert":
    case "insert_one": {
      const onConflict = args.on_conflict as Args | undefined;
      const conflictPath = [...path, "args", "on_conflict"];
      const objects =
        kind === "insert"
          ? (asList(args.objects) as Args[]).map((o, i) =>
              insertObject(ctx, table, o, onConflict, [...path, "args", "objects", i], conflictPath),
            )
          : [insertObject(ctx, table, args.object as Args, onConflict, [...path, "args", "object"], conflictPath)];
      return { kind: "insert", key, table, objects, output, path };
    }
    case "update":
      return { kind: "update", key, table, changes: { args, pk: null }, output, path };
    case "update_by_pk":
      return { kind: "update", key, table, changes: { args, pk: (args.pk_columns ?? {}) as Args }, output, path };
    case "update_many":
      return {
        kind: "update_many",
        key,
        table,
        updates: (asList(args.updates) as Args[]).map((u) => ({ args: u, pk: null })),
        output,
        path,
      };
    default:
      return { kind: "delete", key, table, args, pk: kind === "delete_by_pk" ? args : null, output, path };
  }
}
