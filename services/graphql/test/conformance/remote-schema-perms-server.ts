/**
 * The remotes of test_remote_schema_permissions.py, ported: hasura/graphql-engine server/tests-py
 * remote_schemas/nodejs/remote_schema_perms.js (GRAPHQL_SERVICE_1), and its two copies
 * secondary_remote_schema_perms.js (GRAPHQL_SERVICE_2, the same schema) and
 * secondary_remote_schema_perms_error.js (GRAPHQL_SERVICE_3, `user_id` a Float, which a
 * permission written for the first no longer fits). Same type definitions and resolvers (messages
 * filtered by `where`/`whered` and `includes`, `errorMsg` always failing), served as the Apollo
 * Server 3 original is (apollo-server.ts).
 */
import { buildSchema, GraphQLError, type GraphQLInterfaceType, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { type RemoteSchemaServer, startApolloServer } from "./apollo-server.js";

const typeDefs = (id: "Int" | "Float") => `
  type User {
    user_id: ${id}
    userMessages(whered: MessageWhereInpObj, includes: IncludeInpObj): [Message]
    gimmeText(text: String): String
  }

  interface Communication {
    id: Int!
    msg: String!
  }

  type Message implements Communication {
    id: Int!
    name: String!
    msg: String!
    errorMsg: String
  }

  input MessageWhereInpObj {
    id: IntCompareObj
    name: StringCompareObj
  }

  input IntCompareObj {
    eq : Int
    gt : Int
    lt : Int
  }

  input StringCompareObj {
    eq : String
  }

  input IncludeInpObj {
    id: [Int]
    name: [String]
  }

  enum MessageStatus {
    READ
    DELIVERED
    SENT
  }

  type Person implements Name {
    firstName: String
    lastName: String
    age: Int
  }

  input Dimensions {
    height: Int
    width: Int
  }

  type Photo {
    height: Int
    width: Int
  }

  type SearchQuery {
    firstSearchResult: SearchResult
  }

  union SearchResult = Photo | Person

  interface Name {
    firstName: String
    lastName: String
  }

  type Query {
    hello: String
    messages(where: MessageWhereInpObj, includes: IncludeInpObj): [Message]
    user(user_id: ${id}!): User
    users(user_ids: [${id}]!): [User]
    message(id: Int!) : Message
    communications(id: Int): [Communication]
    profilePicture(dimensions: Dimensions): Photo
  }
`;

interface Message {
  id: number;
  name: string;
  msg: string;
}

const allMessages: Message[] = [
  { id: 1, name: "alice", msg: "You win!" },
  { id: 2, name: "bob", msg: "You lose!" },
  { id: 3, name: "alice", msg: "Another alice" },
];

// biome-ignore lint/suspicious/noDoubleEquals: the original compares with `==` (a Float user_id matches an Int id).
const same = (a: unknown, b: unknown) => a == b;

type Where = { id?: Record<string, unknown>; name?: Record<string, unknown> } | null | undefined;
type Includes = { id?: unknown[]; name?: unknown[] } | null | undefined;

/** The original's filtering of messages by a where object and an includes object (`==` comparisons kept). */
function filtered(messages: Message[], where: Where, includes: Includes): Message[] {
  let result = messages;
  const invalid = () => new GraphQLError("invalid argument");
  if (where?.id) {
    for (const [op, value] of Object.entries(where.id)) {
      if (op === "eq") result = result.filter((m) => same(m.id, value));
      else if (op === "gt") result = result.filter((m) => m.id > (value as number));
      else if (op === "lt") result = result.filter((m) => m.id < (value as number));
      else throw invalid();
    }
  }
  if (where?.name) {
    for (const [op, value] of Object.entries(where.name)) {
      if (op === "eq") result = result.filter((m) => same(m.name, value));
      else throw invalid();
    }
  }
  const ids = includes?.id;
  if (ids) result = result.filter((m) => ids.includes(m.id));
  const names = includes?.name;
  if (names) result = result.filter((m) => names.includes(m.name));
  return result;
}

type Resolver = (parent: never, args: never) => unknown;

function resolve(schema: GraphQLSchema, type: string, resolvers: Record<string, Resolver>): void {
  const fields = (schema.getType(type) as GraphQLObjectType).getFields();
  for (const [name, resolver] of Object.entries(resolvers)) (fields[name] as { resolve?: unknown }).resolve = resolver;
}

function makeSchema(id: "Int" | "Float"): GraphQLSchema {
  const schema = buildSchema(typeDefs(id));
  resolve(schema, "User", {
    userMessages: (parent: { user_id: unknown }, args: { whered?: Where; includes?: Includes }) =>
      filtered(
        allMessages.filter((m) => same(m.id, parent.user_id)),
        args.whered,
        args.includes,
      ),
    gimmeText: (_: unknown, args: { text?: string | null }) => (args.text ? args.text : "no text"),
  });
  resolve(schema, "Message", {
    errorMsg: () => {
      // new ApolloError("intentional-error", "you asked for it"): its code goes with the extensions.
      throw new GraphQLError("intentional-error");
    },
  });
  resolve(schema, "Query", {
    hello: () => "world",
    message: (_: unknown, args: { id: unknown }) => allMessages.find((m) => same(m.id, args.id)),
    messages: (_: unknown, args: { where?: Where; includes?: Includes }) => filtered(allMessages, args.where, args.includes),
    user: (_: unknown, args: { user_id: unknown }) => ({ user_id: args.user_id }),
    users: (_: unknown, args: { user_ids: unknown[] }) => args.user_ids.map((userId) => ({ user_id: userId })),
    communications: (_: unknown, args: { id?: unknown }) => (args.id ? allMessages.filter((m) => same(m.id, args.id)) : allMessages),
    profilePicture: (_: unknown, args: { dimensions?: unknown }) => args.dimensions,
  });
  const communication = schema.getType("Communication") as GraphQLInterfaceType;
  communication.resolveType = (value: unknown) => ((value as { name?: unknown }).name ? "Message" : undefined);
  return schema;
}

/** GRAPHQL_SERVICE_1, _2 and _3 of test_remote_schema_permissions.py's fixtures. */
export async function startRemoteSchemaPermsServers(): Promise<Record<string, RemoteSchemaServer>> {
  const servers: Record<string, RemoteSchemaServer> = {};
  try {
    servers.GRAPHQL_SERVICE_1 = await startApolloServer(makeSchema("Int"));
    servers.GRAPHQL_SERVICE_2 = await startApolloServer(makeSchema("Int"));
    servers.GRAPHQL_SERVICE_3 = await startApolloServer(makeSchema("Float"));
  } catch (error) {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    throw error;
  }
  return servers;
}
