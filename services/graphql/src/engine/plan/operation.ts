/**
 * Planning a whole operation, as the executors ask for it: its root fields collected on the
 * operation's root type (fragments inlined, @skip/@include applied), what answers each (the
 * statement, a handler or remote, or graphql-js for introspection), and each planned against the
 * model with the request's variables or their slots.
 */
import { type GraphQLInputType, type GraphQLObjectType, typeFromAST } from "graphql";
import type { Model } from "../model/types.js";
import type { Operation } from "../request/operation.js";
import { definitionOf, PlanContext } from "./context.js";
import { type Collected, collectFields, fragmentsOf } from "./fields.js";
import { planMutationField, planQueryField } from "./root.js";
import { type SlottedVariables, slotVariables } from "./slots.js";
import type { MutationField, QueryField } from "./types.js";
import type { Variables } from "./values.js";

/** The root type the operation selects on. */
function rootType(operation: Operation): GraphQLObjectType {
  const { schema, kind } = operation;
  const root =
    kind === "mutation" ? schema.getMutationType() : kind === "subscription" ? schema.getSubscriptionType() : schema.getQueryType();
  return root as GraphQLObjectType;
}

/** The root fields the operation selects, given these variables (@skip/@include read them). */
export function rootFields(operation: Operation, variables: Variables): Collected[] {
  return collectFields([operation.definition.selectionSet], rootType(operation).name, fragmentsOf(operation.document), variables);
}

/** `__schema` or `__type`: answered by graphql-js on the role's schema. */
export const isIntrospection = (field: Collected): boolean => field.name === "__schema" || field.name === "__type";

/** Whether a root field is answered by an action's handler or a remote schema rather than by SQL. */
export function answeredByCall(operation: Operation, field: Collected): boolean {
  const kind = definitionOf(rootType(operation), field.name)?.info.kind;
  return kind === "action" || kind === "async_action_query" || kind === "remote" || kind === "remote_namespace";
}

/** The operation's variables with their bindable leaves as plan slots (slots.ts), by the types the operation declares. */
export function operationSlots(operation: Operation, variables: Variables): SlottedVariables {
  const types = new Map<string, GraphQLInputType>();
  for (const def of operation.definition.variableDefinitions ?? []) {
    const type = typeFromAST(operation.schema, def.type);
    if (type) types.set(def.variable.name.value, type as GraphQLInputType);
  }
  return slotVariables(variables, types);
}

/** Query root fields planned with `variables` (the request's values, or slots for a reusable plan). */
export function planQuery(model: Model, operation: Operation, variables: Variables, fields: Collected[]): QueryField[] {
  const planning = new PlanContext(model, operation.session.role, variables, fragmentsOf(operation.document), operation.definition);
  const root = rootType(operation);
  return fields.map((f) => planQueryField(planning, root, f));
}

/** A mutation's root fields planned with the request's variables. */
export function planMutation(model: Model, operation: Operation, variables: Variables, fields: Collected[]): MutationField[] {
  const planning = new PlanContext(model, operation.session.role, variables, fragmentsOf(operation.document), operation.definition);
  const root = rootType(operation);
  return fields.map((f) => planMutationField(planning, root, f));
}
