/**
 * Actions in a role's schema, as Hasura builds them (https://hasura.io/docs/latest/actions/overview/):
 * each action the role may call is a field of query_root or mutation_root, its arguments and
 * output typed by the custom types. Output objects carry their relationships to tables, which
 * the role sees when it may read the target table (array relationships with the table's list
 * arguments and, when allowed, `<name>_aggregate`).
 */
import {
  GraphQLEnumType,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLType,
  getNullableType,
} from "graphql";
import { selectAccess } from "../model/access.js";
import type { ActionModel, CustomObjectModel, TableModel, TypeRef } from "../model/types.js";
import { ADMIN_ROLE } from "../request/session.js";
import type { RoleSchemaBuilder } from "./build.js";
import type { FieldInfo } from "./field-info.js";
import { wrappedType } from "./type-ref.js";

const info = (hasura: FieldInfo) => ({ hasura });
const describe = (description: string | null) => (description ? { description } : {});

/**
 * The descriptions Hasura gives an asynchronous action's query type, its fields and its `id`
 * argument (actionAsyncQuery in server/src-lib/Hasura/GraphQL/Schema/Action.hs); the type itself
 * is described `fields of action: "<name>"`, whatever the action's comment.
 */
const ASYNC_FIELD_DESCRIPTIONS = {
  id: "the unique id of an action",
  created_at: "the time at which this action was created",
  errors: "errors related to the invocation",
  output: "the output fields of this action",
} as const;

/** Whether the role may call the action: admin always, others by create_action_permission. */
export function actionAllowed(action: ActionModel, role: string): boolean {
  return role === ADMIN_ROLE || action.permissions.has(role);
}

export class ActionTypes {
  constructor(private readonly builder: RoleSchemaBuilder) {}

  private get types() {
    return this.builder.model.customTypes;
  }

  /** A scalar or enum by name: GraphQL's own, a custom scalar or enum, or a Postgres scalar. */
  private leaf(name: string): GraphQLType {
    const enumType = this.types.enums.get(name);
    if (enumType)
      return this.builder.named(
        name,
        () =>
          new GraphQLEnumType({
            name,
            ...describe(enumType.description),
            values: Object.fromEntries(
              enumType.values.map((v) => [
                v.value,
                { value: v.value, ...describe(v.description), ...(v.deprecated ? { deprecationReason: "No longer supported" } : {}) },
              ]),
            ),
          }),
      );
    return this.builder.scalarNamed(name, this.types.scalars.get(name)?.description ?? null);
  }

  input(type: TypeRef): GraphQLInputType {
    return wrappedType(type, (name) => this.inputNamed(name)) as GraphQLInputType;
  }

  output(type: TypeRef): GraphQLOutputType {
    return wrappedType(type, (name) => this.outputNamed(name)) as GraphQLOutputType;
  }

  private inputNamed(name: string): GraphQLType {
    const input = this.types.inputs.get(name);
    if (!input) return this.leaf(name);
    return this.builder.named(
      name,
      () =>
        new GraphQLInputObjectType({
          name,
          ...describe(input.description),
          fields: () => Object.fromEntries(input.fields.map((f) => [f.name, { type: this.input(f.ref), ...describe(f.description) }])),
        }),
    );
  }

  private outputNamed(name: string): GraphQLType {
    const object = this.types.objects.get(name);
    if (!object) return this.leaf(name);
    return this.builder.named(
      name,
      () => new GraphQLObjectType({ name, ...describe(object.description), fields: () => this.objectFields(object) }),
    );
  }

  private objectFields(object: CustomObjectModel): GraphQLFieldConfigMap<unknown, unknown> {
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const f of object.fields)
      fields[f.name] = { type: this.output(f.ref), ...describe(f.description), extensions: info({ kind: "output_field", field: f.name }) };
    for (const rel of object.relationships) {
      const target = this.builder.model.tables.get(rel.target) as TableModel;
      const access = selectAccess(target, this.builder.role);
      if (!access) continue;
      if (rel.kind === "object") {
        fields[rel.name] = {
          type: this.builder.objectType(target),
          description: "An object relationship",
          extensions: info({ kind: "object_rel", rel: rel.name }),
        };
        continue;
      }
      fields[rel.name] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(this.builder.objectType(target)))),
        description: "An array relationship",
        args: this.builder.selectArgs(target),
        extensions: info({ kind: "array_rel", rel: rel.name }),
      };
      if (access.aggregations)
        fields[`${rel.name}_aggregate`] = {
          type: new GraphQLNonNull(this.builder.aggregateType(target)),
          description: "An aggregate relationship",
          args: this.builder.selectArgs(target),
          extensions: info({ kind: "array_rel_aggregate", rel: rel.name }),
        };
    }
    return fields;
  }

  /**
   * The role's action fields of query_root, mutation_root or subscription_root. An asynchronous
   * action's mutation answers the call's id (`uuid!`); query_root and subscription_root get a field
   * of the same name reading the call back by id, typed by an object named after the action.
   */
  rootFields(type: "query" | "mutation" | "subscription"): GraphQLFieldConfigMap<unknown, unknown> {
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const action of this.builder.model.actions.values()) {
      if (!actionAllowed(action, this.builder.role)) continue;
      const asynchronous = action.kind === "asynchronous";
      // subscription_root offers only the reading of async calls (Hasura's buildActionSubscriptionFields).
      if (type === "subscription" && !asynchronous) continue;
      if (asynchronous && type !== "mutation") {
        fields[action.name] = {
          type: this.asyncType(action),
          ...describe(action.description),
          args: { id: { type: new GraphQLNonNull(this.builder.scalarNamed("uuid")), description: ASYNC_FIELD_DESCRIPTIONS.id } },
          extensions: info({ kind: "async_action_query", action: action.name }),
        };
        continue;
      }
      if (action.type !== type) continue;
      const args: GraphQLFieldConfigArgumentMap = {};
      for (const a of action.arguments) args[a.name] = { type: this.input(a.ref), ...describe(a.description) };
      fields[action.name] = {
        type: asynchronous ? new GraphQLNonNull(this.builder.scalarNamed("uuid")) : this.output(action.output),
        ...describe(action.description),
        args,
        extensions: info({ kind: "action", action: action.name }),
      };
    }
    return fields;
  }

  /** `<action> {id, created_at, errors, output}`: an asynchronous call's log entry, described as Hasura describes it. */
  private asyncType(action: ActionModel): GraphQLObjectType {
    const field = (fieldName: keyof typeof ASYNC_FIELD_DESCRIPTIONS, type: GraphQLOutputType) => ({
      type,
      description: ASYNC_FIELD_DESCRIPTIONS[fieldName],
      extensions: info({ kind: "async_field", field: fieldName }),
    });
    return this.builder.named(
      action.name,
      () =>
        new GraphQLObjectType({
          name: action.name,
          description: `fields of action: "${action.name}"`,
          fields: () => ({
            id: field("id", new GraphQLNonNull(this.builder.scalarNamed("uuid"))),
            created_at: field("created_at", new GraphQLNonNull(this.builder.scalarNamed("timestamptz"))),
            errors: field("errors", this.builder.scalarNamed("json")),
            // The output is null until the handler has answered.
            output: field("output", getNullableType(this.output(action.output))),
          }),
        }),
    );
  }
}
