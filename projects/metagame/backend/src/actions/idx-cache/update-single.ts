/**
 * `updateIDXProfile` (asynchronous; MetaGame's packages/backend/src/handlers/actions/idxCache/
 * updateSingleProfile/handler.ts): queues a refresh of a player's cached profile. Any of the three
 * roles may queue one for any player, as in MetaGame. Refusals are errors (a 4xx in the backend's
 * error shape), which the engine records as the async action's `errors`.
 *
 * MetaGame awaited the job before answering; here the answer comes once the job is stored, as the
 * queue is durable and shared: `queued: false` means a refresh for that player is already pending
 * (queued or running) in some backend instance.
 */
import type { BackendDeps } from "../../app.js";
import { errors } from "../../errors.js";
import { roleOf, type SessionVariables } from "../../session.js";
import { nullableString } from "../payload.js";

export const updateSingleInput = { playerId: nullableString };

const ROLES = new Set(["admin", "player", "public"]);

export async function updateSingleProfile(deps: BackendDeps, session: SessionVariables, playerId: string | null | undefined) {
  const role = roleOf(session);
  if (!role || !ROLES.has(role)) throw errors.refused(`Expected Role: admin, player, or public. Got "${role}".`);
  if (!playerId) throw errors.refused("Player Id not specified in updateSingleProfile handler.");
  const queued = await deps.profileQueue.enqueue(playerId);
  return { success: true, queued };
}
