/**
 * Relationships from actions' output objects to tables, in SQL. The handler's objects are read
 * as rows (`jsonb_to_record`, each mapped field typed as the column it joins), and each
 * relationship is the same sub-select a table's relationship is, joined on those fields, so the
 * caller's select permissions hold. One statement answers every relationship of an action
 * field: a row per (relationship, object) with the relationship's JSON.
 */
import { ident, join, type Sql, sql } from "@platform/core";
import type { CustomRelationshipModel, TableModel } from "../model/types.js";
import type { OutputField } from "../plan/types.js";
import { typeName } from "./boolexp.js";
import type { CompileContext } from "./context.js";
import { aggregateJson, listJson, objectJson } from "./select.js";

export type RelationshipField = Extract<OutputField, { rel: CustomRelationshipModel }>;

/** One relationship field and the output objects (as JSON text of an array) it is asked on. */
export interface RelationshipBatch {
  field: RelationshipField;
  /** JSON array of the objects, in the order their answers are wanted. */
  objects: string;
}

function targetOf(field: RelationshipField): TableModel {
  return field.kind === "object_rel" ? field.target : field.kind === "array_rel" ? field.rows.table : field.aggregate.table;
}

function relationshipJson(ctx: CompileContext, field: RelationshipField, parent: string): Sql {
  const on = { rel: field.rel, alias: parent };
  if (field.kind === "object_rel") return objectJson(ctx, field.target, field.fields, on);
  if (field.kind === "array_rel") return listJson(ctx, field.rows, on);
  return aggregateJson(ctx, field.aggregate, on);
}

/**
 * `SELECT n, ord, json FROM ...`: for batch `n`, the relationship's JSON text for its `ord`-th
 * object (1-based), every batch in one statement.
 */
export function relationshipsStatement(ctx: CompileContext, batches: RelationshipBatch[]): Sql {
  const parts = batches.map((batch, n) => {
    const target = targetOf(batch.field);
    const element = ctx.alias();
    const parent = ctx.alias();
    const definitions = batch.field.rel.mapping.map(([field, column]) => {
      const model = target.columnByName.get(column);
      return sql`${ident(field)} ${model ? typeName(model) : sql`text`}`;
    });
    // jsonb_to_record needs a column even for a relationship that maps none.
    if (definitions.length === 0) definitions.push(sql`${ident("__none")} text`);
    const value = relationshipJson(ctx, batch.field, parent);
    return sql`SELECT ${n}::int AS n, ${ident(element)}.ord, (${value})::text AS json FROM jsonb_array_elements(${batch.objects}::jsonb) WITH ORDINALITY AS ${ident(element)}(obj, ord), LATERAL jsonb_to_record(${ident(element)}.obj) AS ${ident(parent)}(${join(definitions)})`;
  });
  return join(parts, sql` UNION ALL `);
}
