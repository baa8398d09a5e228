/**
 * The remote schema `backend` as MetaGame's R-2022 backend declares it
 * (packages/backend/src/handlers/remote-schemas/typeDefs.ts at tag v1.0.2022-12-12): the engine
 * merges these root fields into query_root and joins players and guilds into them through the
 * remote relationships of the metadata, so names, argument types and nullability are the contract.
 * `CollectiblesFavorites` and `DaoMetadata` are referenced by no field; they exist because
 * MetaGame's schema has them. Comments, not descriptions: introspection matches R-2022's, which
 * had none.
 */
export const REMOTE_SDL = /* GraphQL */ `
  # A UUID (RFC 4122), in the engine's spelling of the Postgres type.
  scalar uuid

  type Query {
    # DAOhaus memberships of an Ethereum address (empty when no DAOhaus subgraph is configured).
    getDaoHausMemberships(memberAddress: String): [Member!]!
    # BrightID's verification of a MetaGame player id; null when unverified, unknown or unreachable.
    getBrightIdStatus(contextId: uuid): BrightIdStatus
    # pSEED holdings of an address, read through the configured JSON-RPC node.
    getTokenBalances(address: String): TokenBalances
    # The players holding the most pSEED, largest first (default 50).
    getTopPSeedHolders(limit: Int): [TokenBalances!]
    # The roles of a Discord server the bot is in.
    getGuildDiscordRoles(guildDiscordId: String): [DiscordRole!]!
    # A player's roles in a guild's Discord server, most significant first.
    getDiscordServerMemberRoles(guildId: uuid!, playerId: uuid!): [DiscordRole!]!
    # The ten latest messages of a Discord server's announcement channels, as HTML.
    getGuildDiscordAnnouncements(guildDiscordId: String): [String!]
    # The pSEED price; null while no price source is configured.
    getPSeedInfo: PSeedInfo
  }

  type BrightIdStatus {
    unique: Boolean!
    app: String!
    context: String!
    contextIds: [String!]!
  }

  type CollectiblesFavorites {
    address: String
    tokenId: String
  }

  type Moloch {
    id: ID!
    summoner: String!
    totalShares: String!
    totalLoot: String!
    chain: String!
    title: String
    version: String
    avatarURL: String
  }

  type Member {
    id: ID!
    createdAt: String!
    moloch: Moloch!
    molochAddress: String!
    memberAddress: String!
    delegateKey: String!
    shares: String!
    loot: String
    exists: Boolean!
    kicked: Boolean
  }

  type TokenBalances {
    id: ID!
    seedBalance: String!
    pSeedBalance: String!
  }

  type PSeedInfo {
    priceUsd: String
  }

  type DiscordRole {
    id: String!
    position: Int!
    name: String!
  }

  type DaoMetadata {
    contractAddress: String!
    network: String!
    name: String!
    description: String!
    avatarImg: String
  }
`;
