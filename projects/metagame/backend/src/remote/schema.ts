/**
 * The executable remote schema: the SDL of sdl.ts with its resolvers and the `uuid` scalar
 * attached (the wiring graphql-tools' makeExecutableSchema does for MetaGame).
 */
import { buildSchema, GraphQLError, type GraphQLFieldResolver, GraphQLScalarType, type GraphQLSchema, Kind } from "graphql";
import { getBrightIdStatus } from "./brightid.js";
import type { RemoteContext } from "./context.js";
import { getDaoHausMemberships } from "./daohaus.js";
import { getDiscordServerMemberRoles, getGuildDiscordAnnouncements, getGuildDiscordRoles } from "./discord-fields.js";
import { getPSeedInfo, getTokenBalances, getTopPSeedHolders } from "./pseed.js";
import { REMOTE_SDL } from "./sdl.js";

// Any RFC 4122 layout: Postgres accepts every version, and player ids come from more than one generator.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidValue(value: unknown): string {
  if (typeof value !== "string" || !UUID.test(value))
    throw new GraphQLError(`uuid cannot represent ${JSON.stringify(value)}: expected a UUID`);
  return value.toLowerCase();
}

type Args = Record<string, unknown>;
type Resolver = GraphQLFieldResolver<unknown, RemoteContext, Args>;

const str = (value: unknown) => (typeof value === "string" ? value : null);

const RESOLVERS: Record<string, Resolver> = {
  getDaoHausMemberships: (_, args, context) => getDaoHausMemberships(str(args.memberAddress), context),
  getBrightIdStatus: (_, args, context) => getBrightIdStatus(str(args.contextId), context),
  getTokenBalances: (_, args, context) => getTokenBalances(str(args.address), context),
  getTopPSeedHolders: (_, args, context) => getTopPSeedHolders(typeof args.limit === "number" ? args.limit : null, context),
  getGuildDiscordRoles: (_, args, context) => getGuildDiscordRoles(str(args.guildDiscordId), context),
  getDiscordServerMemberRoles: (_, args, context) => getDiscordServerMemberRoles(String(args.guildId), String(args.playerId), context),
  getGuildDiscordAnnouncements: (_, args, context) => getGuildDiscordAnnouncements(str(args.guildDiscordId), context),
  getPSeedInfo: () => getPSeedInfo(),
};

export function buildRemoteSchema(): GraphQLSchema {
  const schema = buildSchema(REMOTE_SDL);
  const uuid = schema.getType("uuid");
  if (!(uuid instanceof GraphQLScalarType)) throw new Error("the remote SDL lacks scalar uuid");
  uuid.serialize = uuidValue;
  uuid.parseValue = uuidValue;
  uuid.parseLiteral = (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError("uuid cannot represent a non-string value: expected a UUID");
    return uuidValue(ast.value);
  };
  const fields = schema.getQueryType()?.getFields() ?? {};
  for (const [name, field] of Object.entries(fields)) {
    const resolve = RESOLVERS[name];
    if (!resolve) throw new Error(`remote field ${name} has no resolver`);
    field.resolve = resolve;
  }
  return schema;
}
