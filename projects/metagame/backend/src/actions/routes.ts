/**
 * The action handlers, at the paths of MetaGame's hasura/metadata/actions.yaml under
 * `{{ACTION_BASE_ENDPOINT}}` = `<backend>/actions`. Quest and guild actions answer every refusal
 * with HTTP 200 `{success: false, error}` (successOrFailure); the profile-cache actions answer
 * refusals as errors.
 */
import type { FastifyInstance } from "fastify";
import type { BackendDeps } from "../app.js";
import { roleOf, sessionVariables } from "../session.js";
import { checkCronCaller } from "../triggers/cron-caller.js";
import { authenticateDiscordGuild } from "./guild/discord-auth.js";
import { type GuildInfoInput, guildInfoInput, guildLayoutInput, saveGuildInformation, saveGuildLayout } from "./guild/save-guild.js";
import { checkExpiredQuery, expiryDays, queueExpiredProfiles } from "./idx-cache/check-expired.js";
import { updateSingleInput, updateSingleProfile } from "./idx-cache/update-single.js";
import { type ActionPayload, actionBody, sessionOf, successOrFailure } from "./payload.js";
import { type CreateCompletionInput, createCompletion, createCompletionInput } from "./quests/create-completion.js";
import { type CreateQuestInput, createQuest, createQuestInput } from "./quests/create-quest.js";
import { type UpdateCompletionInput, updateCompletion, updateCompletionInput } from "./quests/update-completion.js";

type Payload<I> = { Body: ActionPayload<I> };

export async function registerActions(app: FastifyInstance, deps: BackendDeps): Promise<void> {
  app.post<Payload<{ quest: CreateQuestInput }>>(
    "/actions/quests/createQuest",
    { schema: actionBody(createQuestInput, ["quest"]) },
    (request) => successOrFailure(request.log, () => createQuest(deps, request.log, sessionOf(request.body), request.body.input.quest)),
  );
  app.post<Payload<{ questCompletion: CreateCompletionInput }>>(
    "/actions/quests/createCompletion",
    { schema: actionBody(createCompletionInput, ["questCompletion"]) },
    (request) => successOrFailure(request.log, () => createCompletion(deps, sessionOf(request.body), request.body.input.questCompletion)),
  );
  app.post<Payload<{ updateData: UpdateCompletionInput }>>(
    "/actions/quests/updateCompletion",
    { schema: actionBody(updateCompletionInput, ["updateData"]) },
    (request) =>
      successOrFailure(request.log, () => updateCompletion(deps, request.log, sessionOf(request.body), request.body.input.updateData)),
  );

  app.post<Payload<{ guildInformation: GuildInfoInput }>>(
    "/actions/guild/save",
    { schema: actionBody(guildInfoInput, ["guildInformation"]) },
    (request) =>
      successOrFailure(request.log, () => saveGuildInformation(deps, sessionOf(request.body), request.body.input.guildInformation)),
  );
  app.post<Payload<{ guildLayoutInfo: { uuid: string; profileLayout: string } }>>(
    "/actions/guild/saveLayout",
    { schema: actionBody(guildLayoutInput, ["guildLayoutInfo"]) },
    (request) => successOrFailure(request.log, () => saveGuildLayout(deps, sessionOf(request.body), request.body.input.guildLayoutInfo)),
  );
  app.post<Payload<{ code: string }>>(
    "/actions/guild/discord/auth",
    { schema: actionBody({ code: { type: "string" } }, ["code"]) },
    (request) => successOrFailure(request.log, () => authenticateDiscordGuild(deps, sessionOf(request.body), request.body.input.code)),
  );

  app.post<Payload<{ playerId?: string | null }>>("/actions/idxCache/updateSingle", { schema: actionBody(updateSingleInput) }, (request) =>
    updateSingleProfile(deps, sessionOf(request.body), request.body.input.playerId),
  );
  // Called as an action (updateExpiredIDXProfiles, admin only: the engine calls it with the admin's
  // session) and by the daily cron trigger, whose body is the cron event and which carries the cron secret.
  app.post<{ Querystring: { invalidate_after_days?: string }; Body: { session_variables?: unknown } | null }>(
    "/actions/idxCache/checkExpired",
    { schema: checkExpiredQuery },
    (request) => {
      const session = request.body?.session_variables;
      if (session === undefined || roleOf(sessionVariables(session)) !== "admin") checkCronCaller(request.headers, deps.config.cronSecret);
      return queueExpiredProfiles(deps, expiryDays(request.query.invalidate_after_days));
    },
  );
}
