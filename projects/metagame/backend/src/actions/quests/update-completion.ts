/**
 * `updateQuestCompletion` (MetaGame's packages/backend/src/handlers/actions/quests/updateCompletion/):
 * the rules in MetaGame's order and words. MetaGame then made up to three separate calls (the
 * completion's status, the UNIQUE quest closed, the quest's other completions rejected); here they
 * are the root fields of one mutation, which the engine runs in one transaction, so an accepted
 * UNIQUE quest is never left open beside its accepted completion.
 */
import type { FastifyBaseLogger } from "fastify";
import type { BackendDeps } from "../../app.js";
import { errors } from "../../errors.js";
import { roleOf, type SessionVariables } from "../../session.js";
import { playerIdOf, UUID } from "../payload.js";
import { sendDiscordProps } from "./discord-props.js";

export interface UpdateCompletionInput {
  questCompletionId: string;
  status: "ACCEPTED" | "REJECTED";
}

export const updateCompletionInput = {
  updateData: {
    type: "object",
    required: ["questCompletionId", "status"],
    properties: { questCompletionId: { type: "string" }, status: { type: "string", enum: ["ACCEPTED", "REJECTED"] } },
  },
};

interface CompletionRow {
  id: string;
  status: string;
  questId: string;
  completedByPlayerId: string;
}

interface QuestRow {
  id: string;
  title: string;
  status: string;
  repetition: string;
  createdByPlayerId: string;
}

const COMPLETION = `query Completion($id: uuid!) { quest_completion_by_pk(id: $id) { id status questId completedByPlayerId } }`;
const QUEST = `query CompletionQuest($id: uuid!) { quest_by_pk(id: $id) { id title status repetition createdByPlayerId } }`;

const SET_STATUS = `mutation UpdateQuestCompletion($id: uuid!, $status: QuestCompletionStatus_enum!) {
  update_quest_completion_by_pk(pk_columns: {id: $id}, _set: {status: $status}) { id }
}`;

const ACCEPT_UNIQUE = `mutation AcceptUniqueQuestCompletion($id: uuid!, $questId: uuid!) {
  update_quest_completion_by_pk(pk_columns: {id: $id}, _set: {status: ACCEPTED}) { id }
  update_quest_by_pk(pk_columns: {id: $questId}, _set: {status: CLOSED}) { id }
  update_quest_completion(where: {questId: {_eq: $questId}, id: {_neq: $id}}, _set: {status: REJECTED}) { affected_rows }
}`;

export async function updateCompletion(deps: BackendDeps, log: FastifyBaseLogger, session: SessionVariables, input: UpdateCompletionInput) {
  if (roleOf(session) !== "player") throw errors.refused("Expected player role");
  const playerId = playerIdOf(session);
  const completion = UUID.test(input.questCompletionId)
    ? (await deps.engine.request<{ quest_completion_by_pk: CompletionRow | null }>(COMPLETION, { id: input.questCompletionId }))
        .quest_completion_by_pk
    : null;
  if (!completion) throw errors.refused("Quest completion not found");
  const { quest_by_pk: quest } = await deps.engine.request<{ quest_by_pk: QuestRow | null }>(QUEST, { id: completion.questId });
  if (!quest) throw errors.refused("Quest not found");
  if (quest.status !== "OPEN") throw errors.refused("Quest must be open");
  if (quest.createdByPlayerId !== playerId) throw errors.refused("Only quest creator can update a completion");
  if (completion.status !== "PENDING") throw errors.refused("Quest completion already marked as done");

  const accepted = input.status === "ACCEPTED";
  if (accepted && quest.repetition === "UNIQUE") {
    const data = await deps.engine.request<{
      update_quest_completion_by_pk: { id: string } | null;
      update_quest_by_pk: { id: string } | null;
    }>(ACCEPT_UNIQUE, { id: completion.id, questId: quest.id });
    if (!data.update_quest_completion_by_pk) throw errors.refused("Error while updating quest completion");
    if (!data.update_quest_by_pk) throw errors.refused("Error while setting unique quest status to closed after being completed");
  } else {
    const data = await deps.engine.request<{ update_quest_completion_by_pk: { id: string } | null }>(SET_STATUS, {
      id: completion.id,
      status: accepted ? "ACCEPTED" : "REJECTED",
    });
    if (!data.update_quest_completion_by_pk) throw errors.refused("Error while updating quest completion");
  }

  // Not awaited, as in MetaGame: a Discord outage must not fail an accepted completion.
  if (accepted) void sendDiscordProps(deps, log, completion.completedByPlayerId, quest);
  return { success: true, quest_completion_id: completion.id };
}
