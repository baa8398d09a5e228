/**
 * Builds one role's GraphQL schema from the model, with Hasura's type and field names. Types are
 * made on first use and cached by name, so only what the role can reach exists; fields carry
 * `extensions.hasura` telling the compiler what each one reads.
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLFloat,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLScalarType,
  GraphQLSchema,
  type GraphQLSchemaConfig,
  GraphQLString,
  validateSchema,
} from "graphql";
import { type SelectAccess, selectAccess, visibleRelationships } from "../model/access.js";
import { visibleComputedFields } from "../model/function-access.js";
import { isComparable, isJsonb, isNumeric, isTextual } from "../model/scalars.js";
import type { ColumnModel, Model, TableModel } from "../model/types.js";
import { ActionTypes } from "./actions.js";
import { aggregatePredicateFields } from "./aggregate-predicates.js";
import { arrayComparisonType, comparisonType, sortFields } from "./comparison.js";
import type { FieldInfo } from "./field-info.js";
import { computedBoolExpFields, computedObjectFields, computedOrderByFields, functionRootFields } from "./functions.js";
import { mutationFields } from "./mutation.js";
import { arrayColumnList } from "./pg-array.js";
import { type RemoteAbstractType, remoteRelationshipFields, remoteRootFields } from "./remote.js";
import { cursorOrderingEnum, orderByEnum, ScalarRegistry } from "./scalars.js";

export const NUMERIC_AGGREGATES = ["avg", "stddev", "stddev_pop", "stddev_samp", "sum", "var_pop", "var_samp", "variance"] as const;
export const ORDER_AGGREGATES = ["max", "min"] as const;

const info = (hasura: FieldInfo) => ({ hasura });

/** json/jsonb column fields take a JSON path into the value (compiler/json-path.ts). */
const JSON_PATH_ARGS = { path: { type: GraphQLString, description: "JSON select path" } };

const EMPTY_TYPE = / must define one or more (fields|values)\.$/;

/**
 * The schema, checked by graphql-js except for one rule Hasura does not keep either: a role may
 * read no column of a table (say, only its aggregate count), so its object, enum and input types
 * can have no fields. Queries still cannot select an empty selection set.
 */
function validSchema(config: GraphQLSchemaConfig): GraphQLSchema {
  const schema = new GraphQLSchema(config);
  const all = validateSchema(schema);
  // Usually valid: graphql-js keeps the (empty) result, so the schema is built and checked once.
  if (all.length === 0) return schema;
  const errors = all.filter((e) => !EMPTY_TYPE.test(e.message));
  if (errors.length > 0) throw new Error(errors.map((e) => e.message).join("\n\n"));
  return new GraphQLSchema({ ...config, assumeValid: true });
}

export class RoleSchemaBuilder {
  private readonly scalars = new ScalarRegistry();
  private readonly types = new Map<string, GraphQLObjectType | GraphQLInputObjectType | GraphQLEnumType | RemoteAbstractType>();
  private readonly subscriptionFields: GraphQLFieldConfigMap<unknown, unknown> = {};

  constructor(
    readonly model: Model,
    readonly role: string,
    /** Whether backend_only mutations are visible (admin secret + x-hasura-use-backend-only-permissions). */
    readonly backendOnly = false,
  ) {}

  build(): GraphQLSchema {
    const query: GraphQLFieldConfigMap<unknown, unknown> = {};
    const subscription = this.subscriptionFields;
    for (const table of this.model.tables.values()) {
      const access = selectAccess(table, this.role);
      if (!access) continue;
      this.addSelectRoots(query, table, access, access.rootFields);
      this.addSelectRoots(subscription, table, access, access.subscriptionFields);
    }
    Object.assign(query, functionRootFields(this, "query"));
    const actions = new ActionTypes(this);
    Object.assign(query, actions.rootFields("query"));
    Object.assign(subscription, functionRootFields(this, "query"));
    Object.assign(subscription, actions.rootFields("subscription"));
    const remote = { query: remoteRootFields(this, "query"), mutation: remoteRootFields(this, "mutation") };
    Object.assign(query, remote.query.fields);
    Object.assign(subscription, remoteRootFields(this, "subscription").fields);
    const root = (name: string, fields: GraphQLFieldConfigMap<unknown, unknown>) =>
      Object.keys(fields).length > 0 ? new GraphQLObjectType({ name, fields: sortFields(fields) }) : undefined;
    const queryRoot =
      root("query_root", query) ??
      new GraphQLObjectType({ name: "query_root", fields: { no_queries_available: { type: new GraphQLNonNull(GraphQLString) } } });
    return validSchema({
      query: queryRoot,
      mutation: root("mutation_root", {
        ...mutationFields(this),
        ...functionRootFields(this, "mutation"),
        ...actions.rootFields("mutation"),
        ...remote.mutation.fields,
      }),
      subscription: root("subscription_root", subscription),
      types: [...remote.query.types, ...remote.mutation.types],
    });
  }

  private addSelectRoots(
    fields: GraphQLFieldConfigMap<unknown, unknown>,
    table: TableModel,
    access: SelectAccess,
    which: SelectAccess["rootFields"],
  ): void {
    const names = table.rootFields;
    if (which.select) {
      fields[names.select] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.objectType(table)))),
        description: `fetch data from the table: "${table.name}"`,
        args: this.selectArgs(table),
        extensions: info({ kind: "select", table: table.key }),
      };
    }
    if (which.byPk && table.primaryKey) {
      const args: GraphQLFieldConfigArgumentMap = {};
      for (const name of table.primaryKey) {
        const column = table.columnByName.get(name) as ColumnModel;
        args[column.field] = { type: new GraphQLNonNull(this.scalar(column)) };
      }
      fields[names.select_by_pk] = {
        type: this.objectType(table),
        description: `fetch data from the table: "${table.name}" using primary key columns`,
        args,
        extensions: info({ kind: "select_by_pk", table: table.key }),
      };
    }
    if (which.stream && fields === this.subscriptionFields) {
      fields[`${table.typeName}_stream`] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.objectType(table)))),
        description: `fetch data from the table in a streaming manner: "${table.name}"`,
        args: {
          batch_size: { type: new GraphQLNonNull(GraphQLInt), description: "maximum number of rows returned in a single batch" },
          cursor: {
            type: new GraphQLNonNull(new GraphQLList(this.streamCursorType(table))),
            description: "cursor to stream the results returned by the query",
          },
          where: { type: this.boolExpType(table), description: "filter the rows returned" },
        },
        extensions: info({ kind: "select_stream", table: table.key }),
      };
    }
    if (which.aggregate && access.aggregations) {
      fields[names.select_aggregate] = {
        type: new GraphQLNonNull(this.aggregateType(table)),
        description: `fetch aggregated fields from the table: "${table.name}"`,
        args: this.selectArgs(table),
        extensions: info({ kind: "select_aggregate", table: table.key }),
      };
    }
  }

  /** `T_stream_cursor_input`: where a stream starts (one column's value) and which way it runs. */
  private streamCursorType(table: TableModel): GraphQLInputObjectType {
    const name = `${table.typeName}_stream_cursor_input`;
    return this.named(name, () => {
      const valueName = `${table.typeName}_stream_cursor_value_input`;
      const value = this.named(
        valueName,
        () =>
          new GraphQLInputObjectType({
            name: valueName,
            description: "Initial value of the column from where the streaming should start",
            fields: () =>
              sortFields(
                Object.fromEntries(this.access(table).columns.map((c) => [c.field, { type: this.scalar(c) as GraphQLInputType }])),
              ),
          }),
      );
      return new GraphQLInputObjectType({
        name,
        description: `Streaming cursor of the table "${table.name}"`,
        fields: {
          initial_value: { type: new GraphQLNonNull(value), description: "Stream column input with initial value" },
          ordering: { type: cursorOrderingEnum, description: "cursor ordering" },
        },
      });
    });
  }

  access(table: TableModel): SelectAccess {
    return selectAccess(table, this.role) as SelectAccess;
  }

  /** A column's GraphQL type, nullability aside: its scalar or enum, or for an array column the list `[S!]`. */
  scalar(column: ColumnModel): GraphQLScalarType | GraphQLEnumType | GraphQLList<GraphQLNonNull<GraphQLScalarType>> {
    if (column.enumTable) return this.enumType(this.model.tables.get(column.enumTable) as TableModel);
    const scalar = this.scalars.get(column.scalar);
    return column.elementType ? arrayColumnList(new GraphQLNonNull(scalar)) : scalar;
  }

  /**
   * A column's type in results: as `scalar`, except that an array column's items are nullable
   * (`[String]`): PostgreSQL arrays may hold NULL elements whatever the column's constraints,
   * so the schema promises no more than the data keeps. Values written stay `[String!]`.
   */
  outputScalar(column: ColumnModel): GraphQLScalarType | GraphQLEnumType | GraphQLList<GraphQLScalarType> {
    if (!column.elementType || column.enumTable) return this.scalar(column) as GraphQLScalarType | GraphQLEnumType;
    return new GraphQLList(this.scalars.get(column.scalar));
  }

  /** A scalar by its GraphQL name (GraphQL's own, a Postgres type's, or an action's custom scalar). */
  scalarNamed(name: string, description: string | null = null): GraphQLScalarType {
    return this.scalars.get(name, description);
  }

  named<T extends GraphQLObjectType | GraphQLInputObjectType | GraphQLEnumType | RemoteAbstractType>(name: string, make: () => T): T {
    const existing = this.types.get(name);
    if (existing) return existing as T;
    const made = make();
    this.types.set(name, made);
    return made;
  }

  private enumType(table: TableModel): GraphQLEnumType {
    return this.named(`${table.typeName}_enum`, () => {
      const values: Record<string, { value: string; description?: string }> = {};
      for (const v of table.enumValues) values[v.value] = { value: v.value, ...(v.description ? { description: v.description } : {}) };
      return new GraphQLEnumType({ name: `${table.typeName}_enum`, values });
    });
  }

  selectArgs(table: TableModel): GraphQLFieldConfigArgumentMap {
    // Like Hasura, no distinct_on (nor count's `columns`) when the role may read no column.
    const distinct: GraphQLFieldConfigArgumentMap =
      this.access(table).columns.length > 0
        ? {
            distinct_on: {
              type: new GraphQLList(new GraphQLNonNull(this.selectColumnEnum(table))),
              description: "distinct select on columns",
            },
          }
        : {};
    return {
      ...distinct,
      limit: { type: GraphQLInt, description: "limit the number of rows returned" },
      offset: { type: GraphQLInt, description: "skip the first n rows. Use only with order_by" },
      order_by: { type: new GraphQLList(new GraphQLNonNull(this.orderByType(table))), description: "sort the rows by one or more columns" },
      where: { type: this.boolExpType(table), description: "filter the rows returned" },
    };
  }

  selectColumnEnum(table: TableModel): GraphQLEnumType {
    return this.named(`${table.typeName}_select_column`, () => {
      const values: Record<string, { value: string; description: string }> = {};
      for (const c of this.access(table).columns) values[c.field] = { value: c.name, description: "column name" };
      return new GraphQLEnumType({
        name: `${table.typeName}_select_column`,
        description: `select columns of table "${table.name}"`,
        values,
      });
    });
  }

  objectType(table: TableModel): GraphQLObjectType {
    return this.named(table.typeName, () => {
      return new GraphQLObjectType({
        name: table.typeName,
        description: table.comment ?? `columns and relationships of "${table.name}"`,
        fields: () => {
          const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
          for (const c of this.access(table).columns) {
            fields[c.field] = {
              type: c.nullable ? this.outputScalar(c) : new GraphQLNonNull(this.outputScalar(c)),
              ...(c.comment ? { description: c.comment } : {}),
              ...(c.pgType === "json" || c.pgType === "jsonb" ? { args: JSON_PATH_ARGS } : {}),
              extensions: info({ kind: "column", column: c.name }),
            };
          }
          for (const rel of visibleRelationships(this.model, table, this.role)) {
            const target = this.model.tables.get(rel.target) as TableModel;
            if (rel.kind === "object") {
              const type = this.objectType(target);
              // A row the role may not read answers null, so a filtered target is nullable
              // whatever the foreign key's columns promise.
              const nullable = rel.nullable || this.access(target).filter !== null;
              fields[rel.name] = {
                type: nullable ? type : new GraphQLNonNull(type),
                description: "An object relationship",
                extensions: info({ kind: "object_rel", rel: rel.name }),
              };
              continue;
            }
            fields[rel.name] = {
              type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.objectType(target)))),
              description: "An array relationship",
              args: this.selectArgs(target),
              extensions: info({ kind: "array_rel", rel: rel.name }),
            };
            if (this.access(target).aggregations) {
              fields[`${rel.name}_aggregate`] = {
                type: new GraphQLNonNull(this.aggregateType(target)),
                description: "An aggregate relationship",
                args: this.selectArgs(target),
                extensions: info({ kind: "array_rel_aggregate", rel: rel.name }),
              };
            }
          }
          Object.assign(fields, computedObjectFields(this, table));
          // A role sees a remote relationship when it may read every one of its join fields: columns or computed fields.
          const joinFields = new Set([
            ...this.access(table).columns.map((c) => c.name),
            ...visibleComputedFields(this.model, table, this.role).map((cf) => cf.name),
          ]);
          Object.assign(fields, remoteRelationshipFields(this, table, joinFields));
          return sortFields(fields);
        },
      });
    });
  }

  aggregateType(table: TableModel): GraphQLObjectType {
    return this.named(`${table.typeName}_aggregate`, () => {
      return new GraphQLObjectType({
        name: `${table.typeName}_aggregate`,
        description: `aggregated selection of "${table.name}"`,
        fields: () => ({
          aggregate: { type: this.aggregateFieldsType(table), extensions: info({ kind: "aggregate" }) },
          nodes: {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.objectType(table)))),
            extensions: info({ kind: "nodes" }),
          },
        }),
      });
    });
  }

  private aggregateFieldsType(table: TableModel): GraphQLObjectType {
    return this.named(`${table.typeName}_aggregate_fields`, () => {
      const columns = this.access(table).columns;
      return new GraphQLObjectType({
        name: `${table.typeName}_aggregate_fields`,
        description: `aggregate fields of "${table.name}"`,
        fields: () => {
          const fields: GraphQLFieldConfigMap<unknown, unknown> = {
            count: {
              type: new GraphQLNonNull(GraphQLInt),
              args: {
                ...(columns.length > 0 ? { columns: { type: new GraphQLList(new GraphQLNonNull(this.selectColumnEnum(table))) } } : {}),
                distinct: { type: GraphQLBoolean },
              },
              extensions: info({ kind: "count" }),
            },
          };
          const numeric = columns.filter((c) => isNumeric(c.pgType));
          const comparable = columns.filter((c) => isComparable(c.pgType, c.elementType) && !c.enumTable);
          if (numeric.length > 0) {
            for (const op of NUMERIC_AGGREGATES)
              fields[op] = { type: this.opFieldsType(table, op, numeric), extensions: info({ kind: "aggregate_op", op }) };
          }
          if (comparable.length > 0) {
            for (const op of ORDER_AGGREGATES)
              fields[op] = { type: this.opFieldsType(table, op, comparable), extensions: info({ kind: "aggregate_op", op }) };
          }
          return sortFields(fields);
        },
      });
    });
  }

  private opFieldsType(table: TableModel, op: string, columns: ColumnModel[]): GraphQLObjectType {
    return this.named(`${table.typeName}_${op}_fields`, () => {
      const keepsType = op === "sum" || op === "max" || op === "min";
      return new GraphQLObjectType({
        name: `${table.typeName}_${op}_fields`,
        description: `aggregate ${op} on columns`,
        fields: () =>
          sortFields(
            Object.fromEntries(
              columns.map((c) => [
                c.field,
                { type: keepsType ? this.outputScalar(c) : GraphQLFloat, extensions: info({ kind: "column", column: c.name }) },
              ]),
            ),
          ),
      });
    });
  }

  boolExpType(table: TableModel): GraphQLInputObjectType {
    const name = `${table.typeName}_bool_exp`;
    return this.named(name, () => {
      const self: GraphQLInputObjectType = new GraphQLInputObjectType({
        name,
        description: `Boolean expression to filter rows from the table "${table.name}". All fields are combined with a logical 'AND'.`,
        fields: () => {
          const fields: Record<string, { type: GraphQLInputType }> = {
            _and: { type: new GraphQLList(new GraphQLNonNull(self)) },
            _not: { type: self },
            _or: { type: new GraphQLList(new GraphQLNonNull(self)) },
          };
          // A role without select permission (an upsert's or update's `where`) can filter on nothing but _and/_or/_not.
          if (!selectAccess(table, this.role)) return fields;
          for (const c of this.access(table).columns) fields[c.field] = { type: this.comparison(c) };
          for (const rel of visibleRelationships(this.model, table, this.role)) {
            fields[rel.name] = { type: this.boolExpType(this.model.tables.get(rel.target) as TableModel) };
          }
          Object.assign(fields, aggregatePredicateFields(this, table), computedBoolExpFields(this, table));
          return sortFields(fields);
        },
      });
      return self;
    });
  }

  comparison(column: ColumnModel): GraphQLInputObjectType {
    if (column.elementType) {
      const element = this.scalars.get(column.scalar);
      return this.named(`${element.name}_array_comparison_exp`, () => arrayComparisonType(element.name, element));
    }
    const scalar = this.scalar(column) as GraphQLScalarType | GraphQLEnumType;
    const name = scalar.name;
    return this.named(`${name}_comparison_exp`, () =>
      comparisonType(
        name,
        scalar,
        { text: !column.enumTable && isTextual(column.pgType), jsonb: isJsonb(column.pgType), ordered: !column.enumTable },
        () => this.scalars.get("jsonb"),
        () => this.comparison({ ...column, pgType: "text", scalar: "String", enumTable: null }),
      ),
    );
  }

  orderByType(table: TableModel): GraphQLInputObjectType {
    const name = `${table.typeName}_order_by`;
    return this.named(name, () => {
      return new GraphQLInputObjectType({
        name,
        description: `Ordering options when selecting data from "${table.name}".`,
        fields: () => {
          const fields: Record<string, { type: GraphQLInputType }> = {};
          for (const c of this.access(table).columns) fields[c.field] = { type: orderByEnum };
          for (const rel of visibleRelationships(this.model, table, this.role)) {
            const target = this.model.tables.get(rel.target) as TableModel;
            if (rel.kind === "object") fields[rel.name] = { type: this.orderByType(target) };
            else fields[`${rel.name}_aggregate`] = { type: this.aggregateOrderByType(target) };
          }
          Object.assign(fields, computedOrderByFields(this, table));
          return sortFields(fields);
        },
      });
    });
  }

  aggregateOrderByType(table: TableModel): GraphQLInputObjectType {
    const name = `${table.typeName}_aggregate_order_by`;
    return this.named(name, () => {
      const columns = this.access(table).columns;
      return new GraphQLInputObjectType({
        name,
        description: `order by aggregate values of table "${table.name}"`,
        fields: () => {
          const fields: Record<string, { type: GraphQLInputType }> = { count: { type: orderByEnum } };
          const numeric = columns.filter((c) => isNumeric(c.pgType));
          const comparable = columns.filter((c) => isComparable(c.pgType, c.elementType) && !c.enumTable);
          const opType = (op: string, cols: ColumnModel[]) =>
            this.named(
              `${table.typeName}_${op}_order_by`,
              () =>
                new GraphQLInputObjectType({
                  name: `${table.typeName}_${op}_order_by`,
                  fields: () => sortFields(Object.fromEntries(cols.map((c) => [c.field, { type: orderByEnum }]))),
                }),
            );
          if (numeric.length > 0) for (const op of NUMERIC_AGGREGATES) fields[op] = { type: opType(op, numeric) };
          if (comparable.length > 0) for (const op of ORDER_AGGREGATES) fields[op] = { type: opType(op, comparable) };
          return sortFields(fields);
        },
      });
    });
  }
}
