/**
 * The remotes of test_remote_schema_permissions.py, ported: hasura/graphql-engine server/tests-py
 * remote_schemas/nodejs/remote_schema_perms.js (GRAPHQL_SERVICE_1), and its two copies
 * secondary_remote_schema_perms.js (GRAPHQL_SERVICE_2, the same schema) and
 * secondary_remote_schema_perms_error.js (GRAPHQL_SERVICE_3, `user_id` a Float, which a
 * permission written for the first no longer fits). Same type definitions and resolvers (messages
 * filtered by `where`/`whered` and `includes` as index.js filters them, messages-remote.ts;
 * `errorMsg` always failing), served as the Apollo Server 3 original is (apollo-server.ts).
 */
import { buildSchema, type GraphQLInterfaceType, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import { type RemoteSchemaServer, startApolloServer } from "./apollo-server.js";
import { type Args, allMessages, apolloError, filterMessages, looseEquals, resolve } from "./messages-remote.js";

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

function makeSchema(id: "Int" | "Float"): GraphQLSchema {
  const schema = buildSchema(typeDefs(id));
  const user = schema.getType("User") as GraphQLObjectType;
  resolve(user, "userMessages", (parent, args: Args) =>
    filterMessages(
      allMessages.filter((m) => looseEquals(m.id, (parent as { user_id: unknown }).user_id)),
      args.whered as Args | null,
      args.includes as Args | null,
    ),
  );
  resolve(user, "gimmeText", (_, { text }: Args) => (text ? text : "no text"));
  resolve(schema.getType("Message") as GraphQLObjectType, "errorMsg", () => {
    throw apolloError("intentional-error");
  });
  const query = schema.getQueryType() as GraphQLObjectType;
  resolve(query, "hello", () => "world");
  resolve(query, "message", (_, { id }: Args) => allMessages.find((m) => looseEquals(m.id, id)));
  resolve(query, "messages", (_, args: Args) => filterMessages(allMessages, args.where as Args | null, args.includes as Args | null));
  resolve(query, "user", (_, { user_id }: Args) => ({ user_id }));
  resolve(query, "users", (_, { user_ids }: Args) => (user_ids as unknown[]).map((userId) => ({ user_id: userId })));
  resolve(query, "communications", (_, { id }: Args) => (id ? allMessages.filter((m) => looseEquals(m.id, id)) : allMessages));
  resolve(query, "profilePicture", (_, { dimensions }: Args) => dimensions);
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
