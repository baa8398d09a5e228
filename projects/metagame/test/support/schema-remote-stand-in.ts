/**
 * A stand-in for the remote schema `backend` for the schema tests: graphql-js over node:http,
 * serving the root fields the release's remote schema has (their names, arguments and result
 * types). Fields of its object types the tests do not look at are given plausible types. Every
 * field answers null, or an empty list where its type is a list.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildSchema, getNullableType, graphql, isListType } from "graphql";

export const REMOTE_SDL = `
  scalar uuid
  type BrightIdStatus { unique: Boolean! app: String! context: String! contextIds: [String!]! }
  type Moloch { id: ID! title: String version: String }
  type Member { id: ID! molochAddress: String! moloch: Moloch! shares: String! }
  type TokenBalances { id: ID! seedBalance: String! pSeedBalance: String! }
  type PSeedInfo { priceUsd: String }
  type DiscordRole { id: String! position: Int! name: String! }
  type Query {
    getBrightIdStatus(contextId: uuid): BrightIdStatus
    getDaoHausMemberships(memberAddress: String): [Member!]!
    getTokenBalances(address: String): TokenBalances
    getTopPSeedHolders(limit: Int): [TokenBalances!]
    getGuildDiscordRoles(guildDiscordId: String): [DiscordRole!]!
    getDiscordServerMemberRoles(guildId: uuid!, playerId: uuid!): [DiscordRole!]!
    getGuildDiscordAnnouncements(guildDiscordId: String): [String!]
    getPSeedInfo: PSeedInfo
  }
`;

export interface RemoteStandIn {
  url: string;
  close(): Promise<void>;
}

export async function startRemoteStandIn(): Promise<RemoteStandIn> {
  const schema = buildSchema(REMOTE_SDL);
  const root: Record<string, () => unknown> = {};
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {}))
    root[field.name] = () => (isListType(getNullableType(field.type)) ? [] : null);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      let body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ errors: [{ message: "bad JSON" }] }));
        return;
      }
      const result = await graphql({
        schema,
        source: body.query ?? "",
        rootValue: root,
        variableValues: body.variables ?? null,
        operationName: body.operationName ?? null,
      });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
