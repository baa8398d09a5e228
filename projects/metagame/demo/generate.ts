/**
 * The demo world from a seed: the same seed and scale give the same rows (only the skill ids,
 * random in every database, come from the database). Each part draws from its own PRNG stream,
 * so the players of a bigger world begin with the players of a smaller one.
 */
import { Random } from "@platform/core";
import { allDaos, generateGuilds, generateMemberships, METACARTEL_GUILD_ID, METAFAM_GUILD_ID } from "./guilds.js";
import { generatePeople } from "./people.js";
import { generateQuests } from "./quests.js";
import type { DemoScale, DemoWorld, SeededRows } from "./world.js";

export const DEMO_SEED = 20_221_212;

function checkScale(scale: DemoScale): void {
  for (const [key, value] of Object.entries(scale))
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`demo scale: ${key} must be a whole number >= 0, got ${value}`);
  // The showcase quests are posted by players 1 and 2, and a completion needs someone other than the creator.
  if (scale.players < 2) throw new RangeError(`demo scale: players must be at least 2, got ${scale.players}`);
}

export function generateDemoWorld(scale: DemoScale, seeded: SeededRows, seed = DEMO_SEED): DemoWorld {
  checkScale(scale);
  if (seeded.skillIds.length === 0) throw new Error("the database has no skills: apply the project's migrations first");
  const people = generatePeople(new Random(seed), scale.players, seeded.skillIds);
  const playerIds = people.players.map((p) => p.id);
  const guilds = generateGuilds(scale.guilds, scale.players);
  const memberships = generateMemberships(
    new Random(seed + 1),
    playerIds,
    guilds.guilds,
    guilds.guildMetadata,
    allDaos(seeded, guilds.daos),
  );
  const activeGuildIds = [METAFAM_GUILD_ID, METACARTEL_GUILD_ID, ...guilds.guilds.filter((g) => g.status === "ACTIVE").map((g) => g.id)];
  const quests = generateQuests(new Random(seed + 2), {
    quests: scale.quests,
    completions: scale.completions,
    playerIds,
    guildIds: activeGuildIds,
    skillIds: seeded.skillIds,
  });
  return { ...people, ...guilds, ...memberships, ...quests };
}
