/**
 * Aggregation predicates: `<arrayrel>_aggregate` in a bool exp, offered when the role may aggregate
 * the related table. One `T_aggregate_bool_exp` per target table with `count` (any columns) and,
 * when the role can read boolean columns, `bool_and` and `bool_or`, each with `arguments`,
 * `distinct`, `filter` and a required `predicate`.
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLScalarType,
} from "graphql";
import { selectAccess, visibleRelationships } from "../model/access.js";
import type { ColumnModel, TableModel } from "../model/types.js";
import type { RoleSchemaBuilder } from "./build.js";
import { sortFields } from "./comparison.js";

/** The predicate functions; bool_and and bool_or take one boolean column. */
export const PREDICATE_FUNCTIONS = ["bool_and", "bool_or", "count"] as const;
export type PredicateFunction = (typeof PREDICATE_FUNCTIONS)[number];

/** A stand-in column of a built-in scalar, to reuse the builder's `<Scalar>_comparison_exp`. */
export function scalarColumn(pgType: "int4" | "bool"): ColumnModel {
  return {
    name: "",
    field: "",
    pgType,
    scalar: pgType === "int4" ? "Int" : "Boolean",
    nullable: true,
    generated: false,
    enumTable: null,
    comment: null,
  };
}

function booleanColumns(b: RoleSchemaBuilder, table: TableModel): ColumnModel[] {
  return b.access(table).columns.filter((c) => c.pgType === "bool");
}

/** `<rel>_aggregate` fields of a table's bool exp: array relationships whose target the role may aggregate. */
export function aggregatePredicateFields(b: RoleSchemaBuilder, table: TableModel): Record<string, { type: GraphQLInputType }> {
  const fields: Record<string, { type: GraphQLInputType }> = {};
  for (const rel of visibleRelationships(b.model, table, b.role)) {
    if (rel.kind !== "array") continue;
    const target = b.model.tables.get(rel.target) as TableModel;
    if (!selectAccess(target, b.role)?.aggregations) continue;
    fields[`${rel.name}_aggregate`] = { type: aggregateBoolExpType(b, target) };
  }
  return fields;
}

function aggregateBoolExpType(b: RoleSchemaBuilder, table: TableModel): GraphQLInputObjectType {
  const name = `${table.typeName}_aggregate_bool_exp`;
  return b.named(name, () => {
    const fields: Record<string, { type: GraphQLInputType }> = { count: { type: countType(b, table) } };
    if (booleanColumns(b, table).length > 0) {
      for (const fn of ["bool_and", "bool_or"] as const) fields[fn] = { type: booleanFunctionType(b, table, fn) };
    }
    return new GraphQLInputObjectType({ name, fields: sortFields(fields) });
  });
}

function commonFields(b: RoleSchemaBuilder, table: TableModel, predicate: GraphQLInputObjectType) {
  return {
    distinct: { type: GraphQLBoolean as GraphQLScalarType },
    filter: { type: b.boolExpType(table) },
    predicate: { type: new GraphQLNonNull(predicate) },
  };
}

function countType(b: RoleSchemaBuilder, table: TableModel): GraphQLInputObjectType {
  const name = `${table.typeName}_aggregate_bool_exp_count`;
  return b.named(
    name,
    () =>
      new GraphQLInputObjectType({
        name,
        fields: () => ({
          ...(b.access(table).columns.length > 0
            ? { arguments: { type: new GraphQLList(new GraphQLNonNull(b.selectColumnEnum(table))) } }
            : {}),
          ...commonFields(b, table, b.comparison(scalarColumn("int4"))),
        }),
      }),
  );
}

function booleanFunctionType(b: RoleSchemaBuilder, table: TableModel, fn: "bool_and" | "bool_or"): GraphQLInputObjectType {
  const base = `${table.typeName}_aggregate_bool_exp`;
  const name = `${base}_${fn}`;
  return b.named(name, () => {
    const enumName = `${table.typeName}_select_column_${base}_${fn}_arguments_columns`;
    const columns = b.named(
      enumName,
      () =>
        new GraphQLEnumType({
          name: enumName,
          description: `select "${base}_${fn}_arguments_columns" columns of table "${table.name}"`,
          values: Object.fromEntries(booleanColumns(b, table).map((c) => [c.field, { value: c.name, description: "column name" }])),
        }),
    );
    return new GraphQLInputObjectType({
      name,
      fields: () => ({ arguments: { type: new GraphQLNonNull(columns) }, ...commonFields(b, table, b.comparison(scalarColumn("bool"))) }),
    });
  });
}
