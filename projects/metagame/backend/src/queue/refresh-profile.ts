/**
 * One profile-cache refresh: the player's profile read from the profile source and written to the
 * `profile` row (and its linked accounts) through the engine as admin, in one mutation, so a
 * failure writes nothing. Every successful refresh stamps `profile.last_checked_at` (the upsert
 * always updates the row, and the table's trigger sets the time), even when there was nothing to
 * copy, so the daily expired-profiles run does not queue the player again the next day.
 */
import type { Logger } from "@platform/core";
import type { BackendConfig } from "../config.js";
import { createEngineClient, EngineRequestError } from "../engine-client.js";
import { readSourceProfile, type SourceProfile } from "./profile-source.js";

export interface RefreshDeps {
  config: BackendConfig;
  logger: Logger;
  fetch: typeof fetch;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const PLAYER = `query RefreshedPlayer($id: uuid!) { player_by_pk(id: $id) { ethereumAddress } }`;

const upsert = (withAccounts: boolean) => `
  mutation RefreshProfile($profile: profile_insert_input!, $columns: [profile_update_column!]!${withAccounts ? ", $accounts: [player_account_insert_input!]!" : ""}) {
    ${withAccounts ? "insert_player_account(objects: $accounts, on_conflict: {constraint: Account_identifier_type_key, update_columns: [playerId]}) { affected_rows }" : ""}
    insert_profile_one(object: $profile, on_conflict: {constraint: profile_player_id_key, update_columns: $columns}) { id }
  }`;

/** The unique indexes a username can clash on: exact, and case-insensitive. */
const USERNAME_CLASH = /"(profile_username_key|username_insensitive_unique_idx)"/;

export async function refreshProfile(deps: RefreshDeps, data: unknown, signal: AbortSignal): Promise<void> {
  const { config, logger } = deps;
  const playerId = (data as { playerId?: unknown } | null)?.playerId;
  // The engine is called with this job's signal, so stopping the backend stops the job's requests.
  const engine = createEngineClient(config.graphqlUrl, config.adminSecret, (input, init) => deps.fetch(input, { ...init, signal }));
  const player =
    typeof playerId === "string" && UUID.test(playerId)
      ? (await engine.request<{ player_by_pk: { ethereumAddress: string } | null }>(PLAYER, { id: playerId })).player_by_pk
      : null;
  if (!player || typeof playerId !== "string") {
    // Retrying cannot make the player exist: the job is done.
    logger.warn({ playerId }, "profile refresh for an unknown player skipped");
    return;
  }
  const address = player.ethereumAddress.toLowerCase();
  let profile: SourceProfile | null = null;
  if (!config.profileSourceUrl)
    logger.info({ playerId }, "no profile source configured (PROFILE_SOURCE_URL): only last_checked_at updated");
  else {
    profile = await readSourceProfile(deps.fetch, config.profileSourceUrl, address, signal);
    if (!profile) logger.debug({ playerId, address }, "the profile source has no profile for this address");
  }
  const fields = profile?.fields ?? {};
  const accounts = (profile?.accounts ?? []).map((a) => ({ ...a, playerId }));
  const write = (username: unknown) =>
    engine.request(upsert(accounts.length > 0), {
      profile: { ...fields, ...(username !== undefined ? { username } : {}), playerId },
      columns: ["lastCheckedAt", ...Object.keys(fields)],
      ...(accounts.length > 0 ? { accounts } : {}),
    });
  try {
    await write(fields.username);
  } catch (error) {
    const clash = error instanceof EngineRequestError && USERNAME_CLASH.test(error.message);
    if (!clash || typeof fields.username !== "string") throw error;
    // As MetaGame does: the address's last 8 characters make the name the player's own.
    const username = `${fields.username}-${address.slice(-8)}`;
    logger.info({ playerId, username }, "profile username taken; saved with the address's end appended");
    await write(username);
  }
  logger.debug({ playerId, fields: Object.keys(fields), accounts: accounts.length }, "profile refreshed");
}
