/**
 * The remote schema test_remote_relationships.py joins against, ported: hasura/graphql-engine
 * server/tests-py remote_schemas/nodejs/index.js (an Apollo Server 3 `apollo-server`, started by
 * that module's `graphql_service` fixture, whose URL the engine gets as GRAPHQL_SERVICE_HANDLER).
 * The same type definitions, data and resolvers (JavaScript's loose `==` comparisons kept where
 * the original relies on them: ID arguments arrive as strings), and its `formatError` (extensions
 * dropped), served as apollo-server.ts serves those remotes.
 */
import { buildSchema, type GraphQLInterfaceType, type GraphQLObjectType, type GraphQLSchema, type GraphQLUnionType } from "graphql";
import { type RemoteSchemaServer, startApolloServer } from "./apollo-server.js";
import { type Args, allMessages, apolloError, filterMessages, looseEquals, resolve } from "./messages-remote.js";

const typeDefs = `
  type User {
    user_id: Int
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

  union SearchResult = Book | Author

  type Book {
    title: String
  }

  type Author {
    name: String
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

  enum Occupation {
    SINGER
    COMEDIAN
    ARTIST
  }

  type Query {
    hello: String
    messages(where: MessageWhereInpObj, includes: IncludeInpObj): [Message]
    user(user_id: ID!): User
    users(user_ids: [ID]!): [User]
    message(id: Int!) : Message
    communications(id: Int): [Communication]
    search(id: Int!): SearchResult
    getOccupation(name: ID!): Occupation!
    getGrade(marks: Int!): String
  }
`;

const searchData: Record<number, { title?: string; name?: string }> = {
  1: { title: "Harry Porter and the prisoner of Azkaban" },
  2: { name: "J.K. Rowling" },
  3: { title: "Harry Porter and the philoshoper's stone" },
};

function makeSchema(): GraphQLSchema {
  const schema = buildSchema(typeDefs);
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
  resolve(query, "search", (_, { id }: Args) => searchData[id as number]);
  resolve(query, "getOccupation", (_, { name }: Args) => {
    if (name === "alice") return "SINGER";
    if (name === "bob") return "ARTIST";
    throw apolloError(`invalid argument - ${String(name)}`);
  });
  resolve(query, "getGrade", (_, { marks }: Args) => {
    const value = marks as number;
    if (value > 90) return "S";
    if (value > 80) return "A";
    return "B";
  });
  // __resolveType answering null: graphql-js reports the abstract type that did not resolve.
  (schema.getType("Communication") as GraphQLInterfaceType).resolveType = (value) =>
    (value as { name?: unknown }).name ? "Message" : undefined;
  (schema.getType("SearchResult") as GraphQLUnionType).resolveType = (value) => {
    const v = value as { name?: unknown; title?: unknown };
    if (v.name) return "Author";
    if (v.title) return "Book";
    return undefined;
  };
  return schema;
}

export type RemoteRelationshipsServer = RemoteSchemaServer;

export function startRemoteRelationshipsServer(): Promise<RemoteSchemaServer> {
  return startApolloServer(makeSchema());
}
