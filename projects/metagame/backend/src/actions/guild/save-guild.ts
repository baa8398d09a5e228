/**
 * `saveGuildInformation` and `saveGuildLayout` (MetaGame's packages/backend/src/handlers/actions/guild/
 * saveGuildHandler.ts, saveGuildLayoutHandler.ts): only the player who registered the guild's
 * Discord server (guild_metadata.creator_id) may edit it. MetaGame's messages are kept, typographic
 * apostrophe included. Saving the information updates the guild, reconciles its DAOs (those no
 * longer listed are detached when players still belong to them, deleted otherwise; listed ones are
 * updated or inserted) and stores the Discord role choices: MetaGame made those calls one by one;
 * here they are the root fields of one mutation, so a refused DAO leaves the guild unchanged.
 */
import type { BackendDeps } from "../../app.js";
import { errors } from "../../errors.js";
import { type SessionVariables, userIdOf } from "../../session.js";
import { nullableBoolean, nullableString, UUID } from "../payload.js";

export const NOT_OWNER = "Only the guild’s discord server owner can edit this guild.";

interface GuildDaoInput {
  contractAddress: string;
  network: string;
  label?: string | null;
  url?: string | null;
}

export interface GuildInfoInput {
  uuid: string;
  guildname: string;
  name: string;
  type: string;
  description?: string | null;
  discordInviteUrl?: string | null;
  joinUrl?: string | null;
  logoUrl?: string | null;
  websiteUrl?: string | null;
  twitterUrl?: string | null;
  githubUrl?: string | null;
  membershipThroughDiscord?: boolean | null;
  discordAdminRoles: Array<string | null>;
  discordMembershipRoles: Array<string | null>;
  daos?: GuildDaoInput[] | null;
}

const stringList = { type: "array", items: nullableString } as const;

export const guildInfoInput = {
  guildInformation: {
    type: "object",
    required: ["uuid", "guildname", "name", "type", "discordAdminRoles", "discordMembershipRoles"],
    properties: {
      uuid: { type: "string" },
      guildname: { type: "string" },
      name: { type: "string" },
      type: { type: "string" },
      description: nullableString,
      discordInviteUrl: nullableString,
      joinUrl: nullableString,
      logoUrl: nullableString,
      websiteUrl: nullableString,
      twitterUrl: nullableString,
      githubUrl: nullableString,
      membershipThroughDiscord: nullableBoolean,
      discordAdminRoles: stringList,
      discordMembershipRoles: stringList,
      daos: {
        type: ["array", "null"],
        items: {
          type: "object",
          required: ["contractAddress", "network"],
          properties: { contractAddress: { type: "string" }, network: { type: "string" }, label: nullableString, url: nullableString },
        },
      },
    },
  },
};

export const guildLayoutInput = {
  guildLayoutInfo: {
    type: "object",
    required: ["uuid", "profileLayout"],
    properties: { uuid: { type: "string" }, profileLayout: { type: "string" } },
  },
};

const METADATA = `query GuildMetadata($id: uuid!) { guild_metadata_by_pk(guildId: $id) { creatorId discordMetadata } }`;

const DAOS = `query GuildDaos($id: uuid!) { dao(where: {guildId: {_eq: $id}}) { id contractAddress players(limit: 1) { playerId } } }`;

/** The guild's metadata when the caller registered it; MetaGame's refusals otherwise. */
async function ownedMetadata(deps: BackendDeps, session: SessionVariables, guildId: string, missing: string) {
  const metadata = UUID.test(guildId)
    ? (
        await deps.engine.request<{ guild_metadata_by_pk: { creatorId: string | null; discordMetadata: unknown } | null }>(METADATA, {
          id: guildId,
        })
      ).guild_metadata_by_pk
    : null;
  if (!metadata) throw errors.refused(missing);
  if (!metadata.creatorId || metadata.creatorId !== userIdOf(session)) throw errors.refused(NOT_OWNER);
  return metadata;
}

export async function saveGuildInformation(deps: BackendDeps, session: SessionVariables, info: GuildInfoInput) {
  const guildId = info.uuid;
  const metadata = await ownedMetadata(deps, session, guildId, "No pending guild with that ID exists.");
  const { dao: current } = await deps.engine.request<{
    dao: Array<{ id: string; contractAddress: string; players: unknown[] }>;
  }>(DAOS, { id: guildId });

  const submitted = info.daos ?? [];
  const listed = new Set(submitted.map((d) => d.contractAddress));
  const gone = current.filter((d) => !listed.has(d.contractAddress));
  const byAddress = new Map(current.map((d) => [d.contractAddress, d.id]));
  const updates = submitted.filter((d) => byAddress.has(d.contractAddress));
  const inserts = submitted.filter((d) => !byAddress.has(d.contractAddress)).map((d) => ({ ...d, guildId }));

  const variables: Record<string, unknown> = {
    guildId,
    guild: {
      guildname: info.guildname,
      name: info.name,
      type: info.type,
      description: info.description,
      discordInviteUrl: info.discordInviteUrl,
      joinButtonUrl: info.joinUrl,
      logo: info.logoUrl,
      websiteUrl: info.websiteUrl,
      twitterUrl: info.twitterUrl,
      githubUrl: info.githubUrl,
    },
    detach: gone.filter((d) => d.players.length > 0).map((d) => d.id),
    remove: gone.filter((d) => d.players.length === 0).map((d) => d.id),
    inserts,
    discordMetadata: {
      ...(metadata.discordMetadata !== null && typeof metadata.discordMetadata === "object" ? metadata.discordMetadata : {}),
      membershipRoleIds: info.discordMembershipRoles,
      administratorRoleIds: info.discordAdminRoles,
    },
  };
  // One aliased update per DAO kept; the aliases and variable names are ours, never the input's.
  const updateFields = updates.map((dao, i) => {
    variables[`dao${i}`] = { ...dao, guildId };
    variables[`daoId${i}`] = byAddress.get(dao.contractAddress);
    return `dao${i}: update_dao_by_pk(pk_columns: {id: $daoId${i}}, _set: $dao${i}) { id }`;
  });
  const updateVariables = updates.map((_, i) => `, $daoId${i}: uuid!, $dao${i}: dao_set_input!`).join("");
  await deps.engine.request(
    `mutation SaveGuild($guildId: uuid!, $guild: guild_set_input!, $detach: [uuid!]!, $remove: [uuid!]!, $inserts: [dao_insert_input!]!, $discordMetadata: jsonb${updateVariables}) {
      update_guild_by_pk(pk_columns: {id: $guildId}, _set: $guild) { id }
      update_dao(where: {id: {_in: $detach}}, _set: {guildId: null}) { affected_rows }
      delete_dao(where: {id: {_in: $remove}}) { affected_rows }
      insert_dao(objects: $inserts) { affected_rows }
      ${updateFields.join("\n")}
      update_guild_metadata_by_pk(pk_columns: {guildId: $guildId}, _set: {discordMetadata: $discordMetadata}) { guildId }
    }`,
    variables,
  );
  return { success: true };
}

export async function saveGuildLayout(deps: BackendDeps, session: SessionVariables, info: { uuid: string; profileLayout: string }) {
  await ownedMetadata(deps, session, info.uuid, "No guild with that ID exists.");
  await deps.engine.request(
    `mutation SaveGuildLayout($id: uuid!, $layout: String!) { update_guild_by_pk(pk_columns: {id: $id}, _set: {profileLayout: $layout}) { id } }`,
    { id: info.uuid, layout: info.profileLayout },
  );
  return { success: true };
}
