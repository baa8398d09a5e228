/**
 * The remote schema the actions tests join against, ported: hasura/graphql-engine server/tests-py
 * remote_schemas/nodejs/actions_remote_join_schema.js (an Apollo Server 3 `apollo-server`, started
 * by test_actions.py's `graphql_service` fixture, whose URL the engine gets as
 * GRAPHQL_SERVICE_HANDLER). Same type definitions, resolvers and `formatError` (extensions
 * dropped), served as apollo-server.ts serves those remotes.
 */
import { buildSchema, GraphQLError, type GraphQLInterfaceType, type GraphQLObjectType } from "graphql";
import { type RemoteSchemaServer, startApolloServer } from "./apollo-server.js";

export type { RemoteSchemaServer };

const typeDefs = `
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

  type Query {
    hello: String
    message(id: Int!) : Message
  }
`;

const allMessages = [
  { id: 1, name: "Clarke", msg: "Welcome to the team, Clarke" },
  { id: 2, name: "Alice", msg: "Welcome to the team, Alice" },
];

function makeSchema() {
  const schema = buildSchema(typeDefs);
  const query = schema.getQueryType() as GraphQLObjectType;
  const fields = query.getFields();
  (fields.hello as { resolve?: unknown }).resolve = () => "world";
  // biome-ignore lint/suspicious/noDoubleEquals: the original compares with `==` (`m.id == id`).
  (fields.message as { resolve?: unknown }).resolve = (_: unknown, { id }: { id: unknown }) => allMessages.find((m) => m.id == id);
  const message = schema.getType("Message") as GraphQLObjectType;
  (message.getFields().errorMsg as { resolve?: unknown }).resolve = () => {
    // new ApolloError("intentional-error", "you asked for it"): message, then code (dropped by formatError).
    throw new GraphQLError("intentional-error");
  };
  const communication = schema.getType("Communication") as GraphQLInterfaceType;
  communication.resolveType = (value: unknown) => ((value as { name?: unknown }).name ? "Message" : undefined);
  return schema;
}

export function startActionsRemoteJoinSchema(): Promise<RemoteSchemaServer> {
  return startApolloServer(makeSchema());
}
