/**
 * Values for an operation's variables, made from their types so that every operation can be sent,
 * and aimed at the fixture's rows where the variable's name or use says what it points at: a
 * `uuid` used on a guild's field gets the guild's id, `$username` the player's username, and so on.
 * Input objects get their required fields only (an empty `where`/`order_by` is valid); lists one
 * item; enums the state the fixture's rows are in (OPEN, PENDING, ACTIVE) where they have it, else
 * their first value.
 */
import {
  type GraphQLInputType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  type TypeNode,
  typeFromAST,
  visit,
} from "graphql";
import type { Fixture } from "./fixture.js";

/** For each variable, the names on the way to its uses: fields, arguments and object fields (`guild_metadata.where.creatorId._eq`). */
export function variableUses(operation: OperationDefinitionNode): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const names: string[] = [];
  visit(operation.selectionSet, {
    enter(node) {
      if (node.kind === Kind.FIELD || node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.push(node.name.value);
      if (node.kind === Kind.VARIABLE) uses.set(node.name.value, [...(uses.get(node.name.value) ?? []), ...names]);
    },
    leave(node) {
      if (node.kind === Kind.FIELD || node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.pop();
    },
  });
  return uses;
}

/** What a uuid points at, read from the variable's name and then its uses, innermost first; a player by default. */
function uuidFor(name: string, uses: string[], fixture: Fixture): string {
  const owners = [name, ...[...uses].reverse().filter((n) => !n.startsWith("_") && n !== "where")];
  for (const owner of owners) {
    if (owner === "id") continue;
    if (/completion/i.test(owner)) return fixture.completionId;
    if (/guild/i.test(owner)) return fixture.guildId;
    if (/quest/i.test(owner) && !/(created|completed)By/i.test(owner)) return fixture.questId;
    if (/player|creator|createdBy|completedBy|user/i.test(owner)) return fixture.playerId;
  }
  return fixture.playerId;
}

/** The states the fixture's quest, completion and guild are in. */
const FIXTURE_STATES = new Set(["OPEN", "PENDING", "ACTIVE"]);

function stringFor(name: string, fixture: Fixture): string {
  if (/username/i.test(name)) return fixture.username;
  if (/role/i.test(name)) return fixture.role;
  if (/address/i.test(name)) return fixture.address;
  if (/guildname/i.test(name)) return fixture.guildname;
  return "acceptance";
}

function scalarFor(type: string, name: string, uses: string[], fixture: Fixture): unknown {
  switch (type) {
    case "Int":
      return /offset/i.test(name) ? 0 : /limit|first/i.test(name) ? 10 : 1;
    case "Float":
    case "numeric":
      return 1;
    case "Boolean":
      return true;
    case "uuid":
      return uuidFor(name, uses, fixture);
    case "timestamptz":
      return new Date(0).toISOString();
    case "json":
    case "jsonb":
      return {};
    default:
      return stringFor(name, fixture);
  }
}

function valueFor(type: GraphQLInputType, name: string, uses: string[], fixture: Fixture): unknown {
  if (isNonNullType(type)) return valueFor(type.ofType, name, uses, fixture);
  if (isListType(type)) return [valueFor(type.ofType, name, uses, fixture)];
  if (isEnumType(type)) return (type.getValues().find((v) => FIXTURE_STATES.has(v.name)) ?? type.getValues()[0])?.name;
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields()))
      if (isNonNullType(field.type) && field.defaultValue === undefined)
        out[field.name] = valueFor(field.type, field.name, [...uses, name], fixture);
    return out;
  }
  return scalarFor(type.name, name, uses, fixture);
}

/** Every variable of the operation given a value of its type (`schema` is the one it is sent to). */
export function fillVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, fixture: Fixture): Record<string, unknown> {
  const uses = variableUses(operation);
  const variables: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as TypeNode & { kind: Kind.NAMED_TYPE }) as GraphQLInputType | undefined;
    if (!type) throw new Error(`${operation.name?.value}: $${name} has a type the schema lacks`);
    variables[name] = valueFor(type, name, uses.get(name) ?? [], fixture);
  }
  return variables;
}
