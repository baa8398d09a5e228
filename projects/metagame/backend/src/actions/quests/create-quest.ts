/**
 * `createQuest` (MetaGame's packages/backend/src/handlers/actions/quests/createQuest/): the rules
 * in MetaGame's order and words, then one insert as admin with the quest's roles (ranked by their
 * position) and skills nested, so the quest and its rows are written together or not at all.
 * There is deliberately no check that the guild, roles or skills exist: the insert's foreign keys
 * refuse them, and the engine's message is the answer's `error`, as in MetaGame.
 */
import type { FastifyBaseLogger } from "fastify";
import type { BackendDeps } from "../../app.js";
import { errors } from "../../errors.js";
import { roleOf, type SessionVariables } from "../../session.js";
import { nullableInteger, nullableString, playerIdOf } from "../payload.js";
import { mayCreateQuests } from "./token-gate.js";

export interface CreateQuestInput {
  guildId: string;
  title: string;
  description?: string | null;
  externalLink?: string | null;
  repetition?: string | null;
  cooldown?: number | null;
  /** Role keys such as "BUILDER", although the action declares `[uuid]!`: the web client sends keys. */
  roleIds: Array<string | null>;
  skillIds: Array<string | null>;
  image?: string | null;
}

const idList = { type: "array", items: nullableString } as const;

export const createQuestInput = {
  quest: {
    type: "object",
    required: ["guildId", "title", "roleIds", "skillIds"],
    properties: {
      guildId: { type: "string" },
      title: { type: "string" },
      description: nullableString,
      externalLink: nullableString,
      repetition: nullableString,
      cooldown: nullableInteger,
      roleIds: idList,
      skillIds: idList,
      image: nullableString,
    },
  },
};

const PLAYER = `query QuestCreator($id: uuid!) { player_by_pk(id: $id) { ethereumAddress } }`;
const INSERT = `mutation CreateQuest($quest: quest_insert_input!) { insert_quest_one(object: $quest) { id } }`;

export async function createQuest(deps: BackendDeps, log: FastifyBaseLogger, session: SessionVariables, quest: CreateQuestInput) {
  if (roleOf(session) !== "player") throw errors.refused("Expected player role");
  const playerId = playerIdOf(session);
  const recurring = quest.repetition === "RECURRING";
  if (recurring && !quest.cooldown) throw errors.refused("Recurring quests need to have a cooldown");
  if (!recurring && quest.cooldown) throw errors.refused("Non recurring quests cannot have a cooldown");

  const { player_by_pk: player } = await deps.engine.request<{ player_by_pk: { ethereumAddress: string | null } | null }>(PLAYER, {
    id: playerId,
  });
  if (!player?.ethereumAddress) throw errors.refused("Ethereum address not found for player");
  if (!(await mayCreateQuests(deps.config, deps.fetch, log, player.ethereumAddress)))
    throw errors.refused("Player not allowed to create quests");

  const { roleIds, skillIds, repetition, guildId, title, description, externalLink, cooldown, image } = quest;
  const data = await deps.engine.request<{ insert_quest_one: { id: string } | null }>(INSERT, {
    quest: {
      guildId,
      title,
      description,
      externalLink,
      cooldown,
      image,
      // Left out rather than null, so the column's default (UNIQUE) applies.
      ...(repetition ? { repetition } : {}),
      createdByPlayerId: playerId,
      quest_roles: { data: roleIds.map((role, i) => ({ role, rank: i + 1 })) },
      quest_skills: { data: skillIds.map((skillId) => ({ skillId })) },
    },
  });
  return { success: true, quest_id: data.insert_quest_one?.id ?? null };
}
