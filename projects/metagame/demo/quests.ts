/**
 * Quests and their completions, consistent with MetaGame's quest rules
 * (packages/backend/src/handlers/actions/quests/ in github.com/MetaFam/TheGame):
 * - only RECURRING quests have a cooldown (seconds), and they all have one;
 * - a player completes a UNIQUE or PERSONAL quest at most once, and a RECURRING one again only
 *   after its cooldown has passed since their previous completion;
 * - nobody completes their own quest; every completion has a link or a text;
 * - accepting a completion of a UNIQUE quest closes the quest and rejects its other
 *   completions, so a UNIQUE quest with an ACCEPTED completion is CLOSED and has no PENDING one.
 */
import type { Random } from "@platform/core";
import { demoId } from "./ids.js";
import { DEMO_NOW, ROLES } from "./people.js";
import { sample, skewed } from "./pick.js";
import { QUEST_OBJECTS, QUEST_VERBS, SUBMISSION_TEXTS } from "./words.js";
import type { CompletionRow, CompletionStatus, DemoWorld, QuestRepetition, QuestRow, QuestStatus } from "./world.js";

/** The first six quests cover every repetition x status, created by players 1 and 2 in MetaFam. */
export const SHOWCASE: ReadonlyArray<readonly [QuestRepetition, QuestStatus]> = [
  ["UNIQUE", "OPEN"],
  ["UNIQUE", "CLOSED"],
  ["PERSONAL", "OPEN"],
  ["PERSONAL", "CLOSED"],
  ["RECURRING", "OPEN"],
  ["RECURRING", "CLOSED"],
];
/** Completions each showcase quest gets, so each shows its statuses. */
const SHOWCASE_COMPLETIONS = 3;
const COOLDOWNS = [3_600, 86_400, 604_800];
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

type Quests = Pick<DemoWorld, "quests" | "questRoles" | "questSkills" | "completions">;

interface QuestInput {
  quests: number;
  completions: number;
  playerIds: readonly string[];
  /** Quests are posted in active guilds only; the first is MetaFam. */
  guildIds: readonly string[];
  skillIds: readonly string[];
}

export function generateQuests(rng: Random, input: QuestInput): Quests {
  const world: Quests = { quests: [], questRoles: [], questSkills: [], completions: [] };
  const players = input.playerIds.length;
  const creators: number[] = [];
  for (let q = 1; q <= input.quests; q++) {
    const showcase = SHOWCASE[q - 1];
    const [repetition, status] = showcase ?? [repetitionOf(rng), rng.chance(0.7) ? "OPEN" : "CLOSED"];
    // Few players post many quests: player 1 most, then player 2, and so on.
    const creator = showcase ? (q - 1) % 2 : skewed(rng, players, 2);
    creators.push(creator);
    const quest: QuestRow = {
      id: demoId("quest", q),
      createdAt: new Date(DEMO_NOW - rng.between(20, 400) * DAY_MS - rng.int(DAY_MS)).toISOString(),
      guildId: showcase ? (input.guildIds[0] as string) : rng.pick(input.guildIds),
      createdByPlayerId: input.playerIds[creator] as string,
      title: `${rng.pick(QUEST_VERBS)} ${rng.pick(QUEST_OBJECTS)}`,
      description: "Open to every player. Tell us what you did and link to it in your submission.",
      externalLink: rng.chance(0.5) ? `https://forum.example.org/t/quest-${q}` : null,
      cooldown: repetition === "RECURRING" ? rng.pick(COOLDOWNS) : null,
      status,
      repetition,
      image: rng.chance(0.3) ? `https://picsum.photos/seed/metagame-quest-${q}/800/400` : null,
    };
    world.quests.push(quest);
    // createQuest ranks the roles by their position in the request, from 1.
    for (const [i, r] of sample(rng, ROLES.length, rng.between(1, 3)).entries())
      world.questRoles.push({ ownerId: quest.id, role: ROLES[r] as string, rank: i + 1 });
    for (const s of sample(rng, input.skillIds.length, Math.min(input.skillIds.length, rng.int(4))))
      world.questSkills.push({ questId: quest.id, skillId: input.skillIds[s] as string });
  }
  const counts = completionCounts(rng, world.quests, input.completions, players);
  for (const [i, quest] of world.quests.entries()) {
    const rows = completionsOf(
      rng,
      quest,
      counts[i] ?? 0,
      creators[i] as number,
      input.playerIds,
      world.completions.length,
      i < SHOWCASE.length,
    );
    world.completions.push(...rows);
  }
  return world;
}

function repetitionOf(rng: Random): QuestRepetition {
  const r = rng.next();
  return r < 0.4 ? "UNIQUE" : r < 0.7 ? "PERSONAL" : "RECURRING";
}

/**
 * How many completions each quest gets, `total` in all: the showcase quests a few each, the rest
 * spread at random. A UNIQUE or PERSONAL quest holds at most one per player other than its
 * creator; what does not fit goes to a RECURRING quest.
 */
function completionCounts(rng: Random, quests: readonly QuestRow[], total: number, players: number): number[] {
  const counts = quests.map(() => 0);
  if (quests.length === 0) return counts;
  let left = total;
  for (let i = 0; i < Math.min(SHOWCASE.length, quests.length) && left > 0; i++) {
    counts[i] = Math.min(SHOWCASE_COMPLETIONS, left);
    left -= counts[i] as number;
  }
  for (; left > 0; left--) {
    const q = rng.int(quests.length);
    counts[q] = (counts[q] ?? 0) + 1;
  }
  let excess = 0;
  for (const [i, quest] of quests.entries()) {
    if (quest.repetition === "RECURRING" || (counts[i] as number) <= players - 1) continue;
    excess += (counts[i] as number) - (players - 1);
    counts[i] = players - 1;
  }
  const recurring = quests.findIndex((q) => q.repetition === "RECURRING");
  if (excess > 0 && recurring >= 0) counts[recurring] = (counts[recurring] as number) + excess;
  return counts;
}

function completionsOf(
  rng: Random,
  quest: QuestRow,
  count: number,
  creator: number,
  playerIds: readonly string[],
  before: number,
  showcase: boolean,
): CompletionRow[] {
  if (count === 0 || playerIds.length < 2) return [];
  const created = Date.parse(quest.createdAt);
  const recurring = quest.repetition === "RECURRING";
  // A RECURRING quest is done again and again by a few players; the others once by each.
  const completers = sample(rng, playerIds.length, recurring ? Math.min(playerIds.length - 1, Math.ceil(count / 3)) : count, creator);
  const last = new Map<number, number>();
  const rows: CompletionRow[] = [];
  for (let i = 0; i < count; i++) {
    const who = completers[i % completers.length] as number;
    const previous = last.get(who);
    const cooldownMs = (quest.cooldown ?? 0) * 1000;
    const at =
      previous === undefined ? created + rng.between(1, 24 * 60) * HOUR_MS : previous + cooldownMs + rng.int(cooldownMs + 1) + 1000;
    last.set(who, at);
    const link = rng.chance(0.6) ? `https://example.org/submissions/${before + i + 1}` : null;
    rows.push({
      id: demoId("completion", before + i + 1),
      questId: quest.id,
      completedByPlayerId: playerIds[who] as string,
      submittedAt: new Date(at).toISOString(),
      submissionLink: link,
      submissionText: link === null || rng.chance(0.7) ? rng.pick(SUBMISSION_TEXTS) : null,
      status: "PENDING",
    });
  }
  for (const [i, status] of statusesOf(rng, quest, count, showcase).entries()) (rows[i] as CompletionRow).status = status;
  return rows;
}

function statusesOf(rng: Random, quest: QuestRow, count: number, showcase: boolean): CompletionStatus[] {
  if (quest.repetition !== "UNIQUE") {
    return Array.from({ length: count }, () => {
      const r = rng.next();
      return r < 0.25 ? "PENDING" : r < 0.8 ? "ACCEPTED" : "REJECTED";
    });
  }
  // A closed UNIQUE quest was usually closed by accepting one completion (the showcase one always).
  if (quest.status === "CLOSED" && (showcase || rng.chance(0.7))) {
    const accepted = rng.int(count);
    return Array.from({ length: count }, (_, i) => (i === accepted ? "ACCEPTED" : "REJECTED"));
  }
  // Open, or closed by its creator: nothing accepted; the showcase quest keeps one to review.
  return Array.from({ length: count }, (_, i) => ((showcase && i === 0) || rng.chance(0.6) ? "PENDING" : "REJECTED"));
}
