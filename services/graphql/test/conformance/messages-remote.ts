/**
 * What the Node remotes of hasura/graphql-engine server/tests-py remote_schemas/nodejs/ share:
 * index.js (test_remote_relationships.py) and remote_schema_perms.js with its copies
 * (test_remote_schema_permissions.py) answer the same three messages, filtered the same way by
 * `where`/`whered` (`id` and `name` comparisons) and `includes`, with JavaScript's loose `==`
 * where the originals use it, and the same resolver wiring.
 */
import { GraphQLError, type GraphQLFieldResolver, type GraphQLObjectType } from "graphql";

export interface Message {
  id: number;
  name: string;
  msg: string;
}

export const allMessages: Message[] = [
  { id: 1, name: "alice", msg: "You win!" },
  { id: 2, name: "bob", msg: "You lose!" },
  { id: 3, name: "alice", msg: "Another alice" },
];

export type Args = Record<string, unknown>;
type Compare = Record<string, unknown>;

/** `new ApolloError(message, code)`: the code goes to `extensions`, which formatError drops. */
export const apolloError = (message: string) => new GraphQLError(message);

// biome-ignore lint/suspicious/noDoubleEquals: the originals compare with `==` (a string ID, a Float user_id, against a number).
export const looseEquals = (a: unknown, b: unknown) => a == b;

/** The `where`/`whered` and `includes` filters the `messages` and `userMessages` resolvers apply, in the original's order. */
export function filterMessages(start: Message[], where: Args | null | undefined, includes: Args | null | undefined): Message[] {
  let result = start;
  const intExp = where?.id as Compare | null | undefined;
  if (intExp) {
    for (const [op, operand] of Object.entries(intExp)) {
      const value = operand as number;
      if (op === "eq") result = result.filter((m) => looseEquals(m.id, value));
      else if (op === "gt") result = result.filter((m) => m.id > value);
      else if (op === "lt") result = result.filter((m) => m.id < value);
      else throw apolloError("invalid argument");
    }
  }
  const stringExp = where?.name as Compare | null | undefined;
  if (stringExp) {
    for (const [op, operand] of Object.entries(stringExp)) {
      if (op === "eq") result = result.filter((m) => looseEquals(m.name, operand));
      else throw apolloError("invalid argument");
    }
  }
  const ids = includes?.id as unknown[] | null | undefined;
  if (ids) result = result.filter((m) => ids.includes(m.id));
  const names = includes?.name as unknown[] | null | undefined;
  if (names) result = result.filter((m) => names.includes(m.name));
  return result;
}

export function resolve(type: GraphQLObjectType, field: string, resolver: GraphQLFieldResolver<unknown, unknown>): void {
  const def = type.getFields()[field];
  if (!def) throw new Error(`no field ${type.name}.${field}`);
  def.resolve = resolver;
}
