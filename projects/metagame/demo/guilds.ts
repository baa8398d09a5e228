/** Guilds beyond the two seeded ones, their Discord metadata and DAOs, and who belongs to which. */
import type { Random } from "@platform/core";
import { demoAddress, demoDiscordId, demoId } from "./ids.js";
import { sample } from "./pick.js";
import { DEMO_GUILDS, GUILD_TYPES, NETWORKS } from "./words.js";
import type { DaoRow, DemoWorld, GuildMetadataRow, GuildRow, MembershipRow, SeededRows } from "./world.js";

/** The guilds every MetaGame database starts with (fixed ids, from the migrations). */
export const METAFAM_GUILD_ID = "f94b7cd4-cf29-4251-baa5-eaacab98a719";
export const METACARTEL_GUILD_ID = "ab375bd5-43d4-414b-9ad9-373b1c4fca7f";

/** Every 4th added guild is still PENDING (created through Discord, not yet approved): no quests there. */
const PENDING_EVERY = 4;

type Guilds = Pick<DemoWorld, "guilds" | "guildMetadata" | "daos">;

export function generateGuilds(count: number, playerCount: number): Guilds {
  const world: Guilds = { guilds: [], guildMetadata: [], daos: [] };
  for (let g = 1; g <= count; g++) {
    const id = demoId("guild", g);
    const written = DEMO_GUILDS[g - 1];
    const guildname = written?.guildname ?? `guild-${g}`;
    const name = written?.name ?? `Guild ${g}`;
    const discordId = demoDiscordId("guild", g);
    const guild: GuildRow = {
      id,
      guildname,
      name,
      type: written?.type ?? (GUILD_TYPES[g % GUILD_TYPES.length] as string),
      description: written?.description ?? `${name} builds things together and welcomes new players.`,
      logo: `https://picsum.photos/seed/metagame-guild-${guildname}/256`,
      websiteUrl: `https://${guildname}.example.org`,
      discordId,
      status: g % PENDING_EVERY === 0 ? "PENDING" : "ACTIVE",
      membershipThroughDiscord: g % 2 === 1,
      sortPosition: g,
      discordInviteUrl: `https://discord.gg/${guildname}`,
      twitterUrl: g % 3 === 0 ? null : `https://twitter.com/${guildname}`,
      githubUrl: g % 2 === 0 ? `https://github.com/${guildname}` : null,
    };
    world.guilds.push(guild);
    // Player g created guild g (through MetaGame's Discord sign-up), so that player may edit it.
    const metadata: GuildMetadataRow = {
      guildId: id,
      creatorId: demoId("player", ((g - 1) % playerCount) + 1),
      discordId,
      discordMetadata: JSON.stringify({
        membershipRoleIds: [demoDiscordId("role", 2 * g - 1)],
        administratorRoleIds: [demoDiscordId("role", 2 * g)],
      }),
    };
    world.guildMetadata.push(metadata);
    // Odd guilds have a second DAO on a side chain (xdai or polygon, alternately).
    const networks = g % 2 === 1 ? ["mainnet", NETWORKS[1 + ((g >> 1) % 2)] as string] : ["mainnet"];
    for (const network of networks) {
      const d = world.daos.length + 1;
      world.daos.push({
        id: demoId("dao", d),
        contractAddress: demoAddress("dao", d),
        network,
        label: networks.length > 1 && network !== "mainnet" ? `${name} DAO (${network})` : `${name} DAO`,
        url: `https://app.daohaus.club/dao/${network}/${demoAddress("dao", d)}`,
        guildId: id,
      });
    }
  }
  return world;
}

/**
 * Memberships: most players are in MetaFam, many in one or two more active guilds, and each
 * guild's creator in their guild; some members also hold shares in one of the guild's DAOs.
 */
export function generateMemberships(
  rng: Random,
  playerIds: readonly string[],
  guilds: readonly GuildRow[],
  guildMetadata: readonly GuildMetadataRow[],
  daos: ReadonlyArray<Pick<DaoRow, "id" | "guildId">>,
): { guildPlayers: MembershipRow[]; daoPlayers: MembershipRow[] } {
  const active = [METACARTEL_GUILD_ID, ...guilds.filter((g) => g.status === "ACTIVE").map((g) => g.id)];
  const creators = new Map(guildMetadata.map((m) => [m.creatorId, m.guildId]));
  const daosOf = new Map<string, string[]>();
  for (const dao of daos) if (dao.guildId) daosOf.set(dao.guildId, [...(daosOf.get(dao.guildId) ?? []), dao.id]);
  const guildPlayers: MembershipRow[] = [];
  const daoPlayers: MembershipRow[] = [];
  for (const playerId of playerIds) {
    const joined = new Set<string>();
    const created = creators.get(playerId);
    if (created) joined.add(created);
    if (rng.chance(0.9)) joined.add(METAFAM_GUILD_ID);
    for (const i of sample(rng, active.length, Math.min(active.length, rng.int(3)))) joined.add(active[i] as string);
    for (const guildId of joined) {
      guildPlayers.push({ groupId: guildId, playerId, visible: true });
      const guildDaos = daosOf.get(guildId);
      if (guildDaos && rng.chance(0.6)) daoPlayers.push({ groupId: rng.pick(guildDaos), playerId, visible: rng.chance(0.8) });
    }
  }
  return { guildPlayers, daoPlayers };
}

/** The seeded DAOs beside the generated ones (the migrations give them random ids). */
export function allDaos(seeded: SeededRows, generated: readonly DaoRow[]): Array<Pick<DaoRow, "id" | "guildId">> {
  return [...seeded.daos.map((d) => ({ id: d.id, guildId: d.guildId ?? "" })), ...generated];
}
