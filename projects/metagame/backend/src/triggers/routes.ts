/**
 * POST /triggers: the event triggers of the metadata (all delivered to TRIGGERS_ENDPOINT),
 * dispatched on `trigger.name` as MetaGame's packages/backend/src/handlers/triggers/handler.ts
 * does: 403 unless the event's session role is `admin` — so a change made outside the engine
 * (null session) or by a player is refused, as in MetaGame — then 404 for a name it does not
 * handle. Also the two cron targets under ACTION_BASE_ENDPOINT of metadata/cron_triggers.yaml:
 * they take the cron payload, from a caller with the cron secret (cron-caller.ts; MetaGame's
 * check no caller).
 */
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { BackendDeps } from "../app.js";
import { EngineRequestError } from "../engine-client.js";
import { errors } from "../errors.js";
import { discordApi } from "../remote/discord-rest.js";
import { ProviderError } from "../remote/http-json.js";
import { roleOf, sessionVariables } from "../session.js";
import { checkCronCaller } from "./cron-caller.js";
import { playerRankUpdated, playerRoleChanged } from "./discord-roles.js";
import { guildFromRow, syncAllGuilds, syncGuildMembers } from "./guild-members.js";
import { type EventPayload, eventPayloadSchema, type TriggerContext, type TriggerOutcome } from "./payload.js";
import { migrateSourceCredAccounts } from "./sourcecred.js";

export const TRIGGERS_PATH = "/triggers";

type Handler = (payload: EventPayload, context: TriggerContext) => Promise<TriggerOutcome>;

const HANDLERS: Record<string, Handler> = {
  async syncDiscordGuildMembers(payload, context) {
    const guild = payload.event.data.new ? guildFromRow(payload.event.data.new) : null;
    if (!guild) return { message: "skipped: no guild in the event" };
    const outcome = await syncGuildMembers(guild, context);
    return { message: outcome.skipped ? `skipped: ${outcome.skipped}` : "guild members synced", ...outcome };
  },
  async cacheIDXProfile(payload, context) {
    const id = payload.event.data.new?.id;
    if (typeof id !== "string" || id === "") return { message: "skipped: no player in the event" };
    const queued = await context.deps.profileQueue.enqueue(id);
    return { message: queued ? "profile refresh queued" : "a profile refresh is already pending", playerId: id, queued };
  },
  playerRankUpdated,
  playerRoleChanged,
};

/** Cron deliveries: `{scheduled_time, payload, name, id, comment}` (https://hasura.io/docs/2.0/scheduled-triggers/). */
const cronBodySchema = { anyOf: [{ type: "object" }, { type: "null" }] } as const;

/** A failure of Discord, SourceCred or the engine, in the backend's catalogue (502, with the message). */
async function reported<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderError) throw errors.upstream(error.message);
    if (error instanceof EngineRequestError) throw errors.engine(error.message);
    throw error;
  }
}

export async function registerTriggers(app: FastifyInstance, deps: BackendDeps): Promise<void> {
  const discord = discordApi(deps.config, deps.fetch);
  const contextOf = (log: FastifyBaseLogger): TriggerContext => ({ deps, log, discord });

  app.post<{ Body: EventPayload }>(TRIGGERS_PATH, { schema: { body: eventPayloadSchema } }, async (request) => {
    const { event, trigger } = request.body;
    const role = roleOf(sessionVariables(event.session_variables));
    if (role !== "admin")
      throw errors.forbidden(`event triggers are accepted from role admin only, got ${role === undefined ? "no session" : `"${role}"`}`);
    const handler = Object.hasOwn(HANDLERS, trigger.name) ? HANDLERS[trigger.name] : undefined;
    if (!handler) throw errors.notFound(`no handler for the event trigger "${trigger.name}"`);
    const log = request.log.child({ trigger: trigger.name, eventId: request.body.id });
    return reported(() => handler(request.body, contextOf(log)));
  });

  app.post("/actions/migrateSourceCredAccounts", { schema: { body: cronBodySchema } }, async (request) => {
    checkCronCaller(request.headers, deps.config.cronSecret);
    return reported(() => migrateSourceCredAccounts(contextOf(request.log)));
  });

  app.post("/actions/syncAllGuildDiscordMembers", { schema: { body: cronBodySchema } }, async (request) => {
    checkCronCaller(request.headers, deps.config.cronSecret);
    const guilds = await reported(() => syncAllGuilds(contextOf(request.log)));
    return { message: `${guilds.length} guild(s) synced from Discord`, guilds };
  });
}
