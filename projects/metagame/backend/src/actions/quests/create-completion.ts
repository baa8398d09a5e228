/**
 * `createQuestCompletion` (MetaGame's packages/backend/src/handlers/actions/quests/createCompletion/):
 * the rules in MetaGame's order and words (including its missing "for"), then the insert as admin.
 */
import type { BackendDeps } from "../../app.js";
import { errors } from "../../errors.js";
import { roleOf, type SessionVariables } from "../../session.js";
import { nullableString, playerIdOf, UUID } from "../payload.js";

export interface CreateCompletionInput {
  questId: string;
  submissionLink?: string | null;
  submissionText?: string | null;
}

export const createCompletionInput = {
  questCompletion: {
    type: "object",
    required: ["questId"],
    properties: { questId: { type: "string" }, submissionLink: nullableString, submissionText: nullableString },
  },
};

interface QuestRow {
  id: string;
  status: string;
  repetition: string;
  cooldown: number | null;
}

const QUEST = `query CompletedQuest($id: uuid!) { quest_by_pk(id: $id) { id status repetition cooldown } }`;

/** The caller's latest completion of the quest (MetaGame asks for all of them for UNIQUE/PERSONAL; one is enough to refuse). */
const LATEST = `query LatestCompletion($questId: uuid!, $playerId: uuid!) {
  quest_completion(where: {questId: {_eq: $questId}, completedByPlayerId: {_eq: $playerId}}, order_by: {submittedAt: desc}, limit: 1) { submittedAt }
}`;

const INSERT = `mutation CreateQuestCompletion($completion: quest_completion_insert_input!) {
  insert_quest_completion_one(object: $completion) { id }
}`;

export async function createCompletion(deps: BackendDeps, session: SessionVariables, input: CreateCompletionInput) {
  const role = roleOf(session);
  if (role !== "player") throw errors.refused(`Expected player role; got ${role}.`);
  const playerId = playerIdOf(session);
  if (!input.submissionLink && !input.submissionText) throw errors.refused("Must provide at least a submission link or text");

  // questId is a String in the action's input: anything that is no uuid names no quest.
  const quest = UUID.test(input.questId)
    ? (await deps.engine.request<{ quest_by_pk: QuestRow | null }>(QUEST, { id: input.questId })).quest_by_pk
    : null;
  if (!quest) throw errors.refused("Quest not found.");
  if (quest.status !== "OPEN") throw errors.refused("Quest must be open.");

  const latest = async () =>
    (await deps.engine.request<{ quest_completion: Array<{ submittedAt: string }> }>(LATEST, { questId: quest.id, playerId }))
      .quest_completion[0];

  if (quest.repetition === "UNIQUE" || quest.repetition === "PERSONAL") {
    if (await latest()) throw errors.refused("You already submitted a completion this personal/unique quest");
  }
  if (quest.repetition === "RECURRING" && quest.cooldown) {
    const last = await latest();
    if (last && Date.now() - Date.parse(last.submittedAt) < quest.cooldown * 1000)
      throw errors.refused("Player have to wait before being able to do this quest again");
  }

  const data = await deps.engine.request<{ insert_quest_completion_one: { id: string } | null }>(INSERT, {
    completion: {
      questId: quest.id,
      submissionLink: input.submissionLink,
      submissionText: input.submissionText,
      completedByPlayerId: playerId,
    },
  });
  const id = data.insert_quest_completion_one?.id;
  if (!id) throw errors.refused("Error while completing quest");
  return { success: true, quest_completion_id: id };
}
