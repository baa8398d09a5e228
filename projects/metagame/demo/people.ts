/** Players with their profile, linked accounts, skills and roles. */
import type { Random } from "@platform/core";
import { demoAddress, demoDiscordId, demoId } from "./ids.js";
import { sample } from "./pick.js";
import { BIO_ENDINGS, BIO_OPENINGS, EMOJIS, FIRST_NAMES, HANDLES, LAST_INITIALS, PLACES, PRONOUNS } from "./words.js";
import type { AccountRow, DemoWorld, PlayerRow, PlayerSkillRow, ProfileRow } from "./world.js";

/** PlayerRole keys, as the migrations seed them. */
export const ROLES = [
  "BRIDGEBUILDING",
  "VIDEOMAKING",
  "RAINMAKING",
  "ARTIST",
  "BUILDER",
  "DESIGNER",
  "INNKEEPER",
  "SHILLER",
  "WRITER",
  "PATRON",
];
export const EXPLORER_TYPES = ["Pioneer", "Settler", "Town Planner"];
const DAY_MS = 86_400_000;
/** Player 1's XP: the most of anyone, so the leaderboard opens on a known face. */
const TOP_XP = 25_000;

/** The demo's release-day clock: every generated time lies before it, whatever day the demo is loaded. */
export const DEMO_NOW = Date.UTC(2022, 11, 12);

/** Player n's handle: the n-th of HANDLES, then `<handle>-<n>` once they run out. */
export function demoUsername(n: number): string {
  const handle = HANDLES[(n - 1) % HANDLES.length] as string;
  return n <= HANDLES.length ? handle : `${handle}-${n}`;
}

function rankFor(xp: number): string | null {
  if (xp >= 10_000) return "DIAMOND";
  if (xp >= 5_000) return "PLATINUM";
  if (xp >= 2_000) return "GOLD";
  if (xp >= 700) return "SILVER";
  if (xp >= 200) return "BRONZE";
  return null;
}

type People = Pick<DemoWorld, "players" | "profiles" | "accounts" | "playerSkills" | "playerRoles">;

export function generatePeople(rng: Random, count: number, skillIds: readonly string[]): People {
  const people: People = { players: [], profiles: [], accounts: [], playerSkills: [], playerRoles: [] };
  for (let n = 1; n <= count; n++) {
    const id = demoId("player", n);
    const username = demoUsername(n);
    const address = demoAddress("player", n);
    // Most players have little XP, a few a lot (cubed uniform), as on any leaderboard.
    const totalXp = n === 1 ? TOP_XP : Math.round(20_000 * rng.next() ** 3);
    const roles = sample(rng, ROLES.length, rng.between(1, 3)).map((i) => ROLES[i] as string);
    const discord = rng.chance(0.7) ? demoDiscordId("player", n) : null;
    const player: PlayerRow = {
      id,
      ethereumAddress: address,
      totalXp,
      seasonXp: Math.round(totalXp * rng.next() * 0.5),
      rank: rankFor(totalXp),
      role: roles[0] ?? null,
      discordId: discord,
      createdAt: new Date(DEMO_NOW - rng.between(30, 700) * DAY_MS - rng.int(DAY_MS)).toISOString(),
    };
    people.players.push(player);
    people.profiles.push(profileOf(rng, n, id, username));
    people.accounts.push(...accountsOf(rng, id, username, address, discord));
    for (const [i, role] of roles.entries()) people.playerRoles.push({ ownerId: id, role, rank: i + 1 });
    people.playerSkills.push(...skillsOf(rng, id, skillIds, people.playerSkills.length));
  }
  return people;
}

function profileOf(rng: Random, n: number, playerId: string, username: string): ProfileRow {
  const [location, countryCode, timeZone] = rng.pick(PLACES);
  const first = rng.pick(FIRST_NAMES);
  const image = (kind: string, size: string) => `https://picsum.photos/seed/metagame-${username}-${kind}/${size}`;
  return {
    id: demoId("profile", n),
    playerId,
    username,
    name: `${first} ${LAST_INITIALS[rng.int(LAST_INITIALS.length)]}.`,
    description: `${rng.pick(BIO_OPENINGS)} ${rng.pick(BIO_ENDINGS)}`,
    location,
    countryCode,
    emoji: rng.pick(EMOJIS),
    profileImageUrl: image("avatar", "256"),
    bannerImageUrl: image("banner", "1200/300"),
    backgroundImageUrl: rng.chance(0.3) ? image("background", "1920/1080") : null,
    website: rng.chance(0.4) ? `https://${username}.example.org` : null,
    pronouns: rng.pick(PRONOUNS),
    availableHours: 5 * rng.int(9),
    timeZone,
    // ColorAspect masks are 0..31; explorer types are the three seeded titles.
    colorMask: rng.int(32),
    explorerTypeTitle: rng.pick(EXPLORER_TYPES),
  };
}

/** ETHEREUM always (the wallet the player signs in with); other accounts for some players. */
function accountsOf(rng: Random, playerId: string, username: string, address: string, discord: string | null): AccountRow[] {
  const accounts: AccountRow[] = [{ playerId, type: "ETHEREUM", identifier: address }];
  if (discord) accounts.push({ playerId, type: "DISCORD", identifier: discord });
  if (rng.chance(0.5)) accounts.push({ playerId, type: "GITHUB", identifier: username });
  if (rng.chance(0.5)) accounts.push({ playerId, type: "TWITTER", identifier: `${username.replaceAll("-", "_")}_eth` });
  if (rng.chance(0.15)) accounts.push({ playerId, type: "DISCOURSE", identifier: username });
  if (rng.chance(0.1)) accounts.push({ playerId, type: "MEETWITHWALLET", identifier: address });
  return accounts;
}

function skillsOf(rng: Random, playerId: string, skillIds: readonly string[], before: number): PlayerSkillRow[] {
  const picked = sample(rng, skillIds.length, Math.min(skillIds.length, rng.between(2, 6)));
  return picked.map((i, k) => ({ id: demoId("playerSkill", before + k + 1), playerId, skillId: skillIds[i] as string }));
}
