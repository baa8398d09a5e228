/** mutation_root fields and their input types for one role. */
import {
  type GraphQLEnumType as EnumType,
  GraphQLEnumType,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from "graphql";
import { deleteAccess, insertAccess, selectAccess, updateAccess, type WriteAccess } from "../model/access.js";
import { isIncrementable, isJsonb } from "../model/scalars.js";
import type { ColumnModel, TableModel } from "../model/types.js";
import type { RoleSchemaBuilder } from "./build.js";
import { sortFields } from "./comparison.js";
import type { MutationKind } from "./field-info.js";

const info = (kind: MutationKind, table: string) => ({ hasura: { kind, table } });
const nonNullList = (type: GraphQLInputType) => new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));

function visible(access: WriteAccess | null, backendOnly: boolean): access is WriteAccess {
  return access !== null && (!access.backendOnly || backendOnly);
}

export function mutationFields(b: RoleSchemaBuilder): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const table of b.model.tables.values()) {
    const names = table.rootFields;
    const canSelect = selectable(b, table);
    const ins = insertAccess(table, b.role);
    // Whatever columns it grants (none, even: a row of defaults, or rows through relationships), as Hasura's insertIntoTable.
    if (table.mutable.insert && visible(ins, b.backendOnly)) {
      const onConflict: GraphQLFieldConfigArgumentMap =
        visible(updateAccess(table, b.role), b.backendOnly) && table.uniqueConstraints.length > 0
          ? { on_conflict: { type: onConflictType(b, table) } }
          : {};
      fields[names.insert] = {
        type: responseType(b, table),
        description: `insert data into the table: "${table.name}"`,
        args: { objects: { type: nonNullList(insertInputType(b, table)) }, ...onConflict },
        extensions: info("insert", table.key),
      };
      if (canSelect) {
        fields[names.insert_one] = {
          type: b.objectType(table),
          description: `insert a single row into the table: "${table.name}"`,
          args: { object: { type: new GraphQLNonNull(insertInputType(b, table)) }, ...onConflict },
          extensions: info("insert_one", table.key),
        };
      }
    }
    const upd = updateAccess(table, b.role);
    if (table.mutable.update && visible(upd, b.backendOnly) && (upd.columns.length > 0 || Object.keys(upd.presets).length > 0)) {
      const ops = updateOperatorArgs(b, table, upd);
      fields[names.update] = {
        type: responseType(b, table),
        description: `update data of the table: "${table.name}"`,
        args: {
          ...ops,
          where: { type: new GraphQLNonNull(b.boolExpType(table)), description: "filter the rows which have to be updated" },
        },
        extensions: info("update", table.key),
      };
      if (byPkAvailable(b, table)) {
        fields[names.update_by_pk] = {
          type: b.objectType(table),
          description: `update single row of the table: "${table.name}"`,
          args: { ...ops, pk_columns: { type: new GraphQLNonNull(pkInputType(b, table)) } },
          extensions: info("update_by_pk", table.key),
        };
      }
      fields[names.update_many] = {
        type: new GraphQLList(responseType(b, table)),
        description: `update multiples rows of table: "${table.name}"`,
        args: { updates: { type: nonNullList(updatesType(b, table, ops)), description: "updates to execute, in order" } },
        extensions: info("update_many", table.key),
      };
    }
    const del = deleteAccess(table, b.role);
    if (table.mutable.delete && visible(del, b.backendOnly)) {
      fields[names.delete] = {
        type: responseType(b, table),
        description: `delete data from the table: "${table.name}"`,
        args: { where: { type: new GraphQLNonNull(b.boolExpType(table)), description: "filter the rows which have to be deleted" } },
        extensions: info("delete", table.key),
      };
      if (byPkAvailable(b, table)) {
        const args: GraphQLFieldConfigArgumentMap = {};
        for (const name of table.primaryKey) {
          const column = table.columnByName.get(name) as ColumnModel;
          args[column.field] = { type: new GraphQLNonNull(b.scalar(column)) };
        }
        fields[names.delete_by_pk] = {
          type: b.objectType(table),
          description: `delete single row from the table: "${table.name}"`,
          args,
          extensions: info("delete_by_pk", table.key),
        };
      }
    }
  }
  return sortFields(fields);
}

function selectable(b: RoleSchemaBuilder, table: TableModel): boolean {
  return selectAccess(table, b.role) !== null;
}

/** update_/delete_<T>_by_pk: a primary key every column of which the role may select (Hasura's primaryKeysArguments). */
function byPkAvailable(b: RoleSchemaBuilder, table: TableModel): table is TableModel & { primaryKey: string[] } {
  const access = selectAccess(table, b.role);
  return table.primaryKey !== null && access !== null && table.primaryKey.every((c) => access.columnNames.has(c));
}

function responseType(b: RoleSchemaBuilder, table: TableModel): GraphQLObjectType {
  return b.named(`${table.typeName}_mutation_response`, () => {
    return new GraphQLObjectType({
      name: `${table.typeName}_mutation_response`,
      description: `response of any mutation on the table "${table.name}"`,
      fields: () => {
        const fields: GraphQLFieldConfigMap<unknown, unknown> = {
          affected_rows: {
            type: new GraphQLNonNull(GraphQLInt),
            description: "number of rows affected by the mutation",
            extensions: { hasura: { kind: "affected_rows" } },
          },
        };
        if (selectable(b, table)) {
          fields.returning = {
            type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(b.objectType(table)))),
            description: "data from the rows affected by the mutation",
            extensions: { hasura: { kind: "returning" } },
          };
        }
        return fields;
      },
    });
  });
}

function insertInputType(b: RoleSchemaBuilder, table: TableModel): GraphQLInputObjectType {
  return b.named(`${table.typeName}_insert_input`, () => {
    return new GraphQLInputObjectType({
      name: `${table.typeName}_insert_input`,
      description: `input type for inserting data into table "${table.name}"`,
      fields: () => {
        const fields: Record<string, { type: GraphQLInputType }> = {};
        for (const c of (insertAccess(table, b.role) as WriteAccess).columns) fields[c.field] = { type: b.scalar(c) };
        for (const rel of table.relationships.values()) {
          const target = b.model.tables.get(rel.target);
          if (!target || !visible(insertAccess(target, b.role), b.backendOnly)) continue;
          const inner = insertInputType(b, target);
          const upsert = visible(updateAccess(target, b.role), b.backendOnly) && target.uniqueConstraints.length > 0;
          const name = `${target.typeName}_${rel.kind === "object" ? "obj" : "arr"}_rel_insert_input`;
          fields[rel.name] = {
            type: b.named(
              name,
              () =>
                new GraphQLInputObjectType({
                  name,
                  description: `input type for inserting ${rel.kind} relation for remote table "${target.name}"`,
                  fields: () => ({
                    data: { type: rel.kind === "object" ? new GraphQLNonNull(inner) : nonNullList(inner) },
                    ...(upsert ? { on_conflict: { type: onConflictType(b, target), description: "upsert condition" } } : {}),
                  }),
                }),
            ),
          };
        }
        return sortFields(fields);
      },
    });
  });
}

function onConflictType(b: RoleSchemaBuilder, table: TableModel): GraphQLInputObjectType {
  return b.named(`${table.typeName}_on_conflict`, () => {
    const constraint = b.named(`${table.typeName}_constraint`, () => {
      const values: Record<string, { value: string; description: string }> = {};
      for (const u of table.uniqueConstraints)
        values[u.name] = {
          value: u.name,
          description: `unique or primary key constraint on columns ${u.columns.map((c) => `"${c}"`).join(", ")}`,
        };
      return new GraphQLEnumType({
        name: `${table.typeName}_constraint`,
        description: `unique or primary key constraints on table "${table.name}"`,
        values,
      });
    });
    return new GraphQLInputObjectType({
      name: `${table.typeName}_on_conflict`,
      description: `on_conflict condition type for table "${table.name}"`,
      fields: () => ({
        constraint: { type: new GraphQLNonNull(constraint) },
        update_columns: { type: nonNullList(updateColumnEnum(b, table)), defaultValue: [] },
        where: { type: b.boolExpType(table) },
      }),
    });
  });
}

function updateColumnEnum(b: RoleSchemaBuilder, table: TableModel): EnumType {
  return b.named(`${table.typeName}_update_column`, () => {
    const columns = updateAccess(table, b.role)?.columns ?? [];
    const values: Record<string, { value: string; description: string }> = {};
    for (const c of columns) values[c.field] = { value: c.name, description: "column name" };
    // An enum needs a value even when the role may update nothing (Hasura emits the same placeholder).
    if (columns.length === 0) values._PLACEHOLDER = { value: "_PLACEHOLDER", description: "placeholder (do not use)" };
    return new GraphQLEnumType({ name: `${table.typeName}_update_column`, description: `update columns of table "${table.name}"`, values });
  });
}

function columnsInput(
  b: RoleSchemaBuilder,
  name: string,
  description: string,
  columns: ColumnModel[],
  typeOf: (c: ColumnModel) => GraphQLInputType,
) {
  return b.named(
    name,
    () =>
      new GraphQLInputObjectType({
        name,
        description,
        fields: () => sortFields(Object.fromEntries(columns.map((c) => [c.field, { type: typeOf(c) }]))),
      }),
  );
}

function updateOperatorArgs(b: RoleSchemaBuilder, table: TableModel, access: WriteAccess): GraphQLFieldConfigArgumentMap {
  const t = table.typeName;
  const args: GraphQLFieldConfigArgumentMap = {};
  if (access.columns.length > 0) {
    args._set = {
      type: columnsInput(b, `${t}_set_input`, `input type for updating data in table "${table.name}"`, access.columns, (c) => b.scalar(c)),
      description: "sets the columns of the filtered rows to the given values",
    };
  }
  const numeric = access.columns.filter((c) => isIncrementable(c.pgType));
  if (numeric.length > 0) {
    args._inc = {
      type: columnsInput(b, `${t}_inc_input`, `input type for incrementing numeric columns in table "${table.name}"`, numeric, (c) =>
        b.scalar(c),
      ),
      description: "increments the numeric columns with given value of the filtered values",
    };
  }
  const jsonb = access.columns.filter((c) => isJsonb(c.pgType));
  if (jsonb.length > 0) {
    const jsonbType = (c: ColumnModel) => b.scalar(c);
    args._append = {
      type: columnsInput(b, `${t}_append_input`, "append existing jsonb value of filtered columns with new jsonb value", jsonb, jsonbType),
    };
    args._prepend = {
      type: columnsInput(
        b,
        `${t}_prepend_input`,
        "prepend existing jsonb value of filtered columns with new jsonb value",
        jsonb,
        jsonbType,
      ),
    };
    args._delete_key = {
      type: columnsInput(
        b,
        `${t}_delete_key_input`,
        "delete key/value pair or string element. key/value pairs are matched based on their key value",
        jsonb,
        () => GraphQLString,
      ),
    };
    args._delete_elem = {
      type: columnsInput(
        b,
        `${t}_delete_elem_input`,
        "delete the array element with specified index (negative integers count from the end). throws an error if top level container is not an array",
        jsonb,
        () => GraphQLInt,
      ),
    };
    args._delete_at_path = {
      type: columnsInput(
        b,
        `${t}_delete_at_path_input`,
        "delete the field or element with specified path (for JSON arrays, negative integers count from the end)",
        jsonb,
        () => new GraphQLList(new GraphQLNonNull(GraphQLString)),
      ),
    };
  }
  return args;
}

function pkInputType(b: RoleSchemaBuilder, table: TableModel): GraphQLInputObjectType {
  const columns = (table.primaryKey ?? []).map((name) => table.columnByName.get(name) as ColumnModel);
  return columnsInput(
    b,
    `${table.typeName}_pk_columns_input`,
    `primary key columns input for table: ${table.name}`,
    columns,
    (c) => new GraphQLNonNull(b.scalar(c)),
  );
}

function updatesType(b: RoleSchemaBuilder, table: TableModel, ops: GraphQLFieldConfigArgumentMap): GraphQLInputObjectType {
  return b.named(`${table.typeName}_updates`, () => {
    return new GraphQLInputObjectType({
      name: `${table.typeName}_updates`,
      fields: () => ({
        ...Object.fromEntries(Object.entries(ops).map(([name, arg]) => [name, { type: arg.type }])),
        where: { type: new GraphQLNonNull(b.boolExpType(table)), description: "filter the rows which have to be updated" },
      }),
    });
  });
}
