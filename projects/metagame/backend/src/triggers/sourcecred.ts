/**
 * The cron target POST /actions/migrateSourceCredAccounts (MetaGame's
 * packages/backend/src/handlers/actions/migrateSourceCredAccounts/handler.ts): players' XP,
 * season XP, rank and Discord id from the SourceCred instance's accounts file
 * (SOURCECRED_LEDGER_URL, the URL of its output/accounts.json), and their linked accounts.
 * Players are matched by Ethereum address and never created here: a player's id is its auth
 * user's id, so only a sign-in makes one (MetaGame's `?force` insert has no counterpart).
 * Each player is updated on its own, ten at a time, so one bad row (a Discord id another player
 * holds, say) skips that player only.
 */
import { errors } from "../errors.js";
import { ProviderError, requestJson } from "../remote/http-json.js";
import type { TriggerContext, TriggerOutcome } from "./payload.js";
import { isSeasonStart, type LedgerAccount, type PlayerUpdate, playerUpdates } from "./sourcecred-accounts.js";

const CONCURRENCY = 10;

const UPDATE = /* GraphQL */ `
  mutation UpdateXP($address: String!, $set: player_set_input!) {
    update_player(where: {ethereumAddress: {_eq: $address}}, _set: $set) { affected_rows returning { id } }
  }
`;

const LINK = /* GraphQL */ `
  mutation Link($accounts: [player_account_insert_input!]!) {
    insert_player_account(objects: $accounts, on_conflict: {constraint: Account_identifier_type_key, update_columns: []}) { affected_rows }
  }
`;

/** Runs `work` over the items, at most `limit` at once. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** true when the player was updated, false when no player has the address or the update failed (logged). */
async function updatePlayer(update: PlayerUpdate, context: TriggerContext): Promise<boolean> {
  const { engine } = context.deps;
  const set = {
    totalXP: update.totalXP,
    seasonXP: update.seasonXP,
    rank: update.rank,
    ...(update.discordId ? { discordId: update.discordId } : {}),
  };
  try {
    const { update_player } = await engine.request<{ update_player: { affected_rows: number; returning: Array<{ id: string }> } }>(UPDATE, {
      address: update.ethereumAddress,
      set,
    });
    const playerId = update_player.returning[0]?.id;
    if (!playerId) return false;
    if (update.accounts.length > 0) {
      await engine
        .request(LINK, { accounts: update.accounts.map((account) => ({ playerId, ...account })) })
        .catch((error: unknown) => context.log.warn({ err: error, playerId }, "could not link a player's SourceCred accounts"));
    }
    return true;
  } catch (error) {
    context.log.warn({ err: error, address: update.ethereumAddress }, "could not update a player from SourceCred");
    return false;
  }
}

export async function migrateSourceCredAccounts(context: TriggerContext, now = new Date()): Promise<TriggerOutcome> {
  const url = context.deps.config.sourceCredLedgerUrl;
  if (!url) {
    context.log.info("SourceCred is not configured: XP not migrated");
    return { message: "skipped: SourceCred is not configured" };
  }
  let file: { accounts?: unknown };
  try {
    file = (await requestJson<{ accounts?: unknown }>(context.deps.fetch, { provider: "SourceCred", url })) ?? {};
  } catch (error) {
    throw errors.upstream(error instanceof ProviderError ? error.message : "SourceCred could not be read");
  }
  if (!Array.isArray(file.accounts)) throw errors.upstream("SourceCred: the accounts file has no `accounts` list");
  if (isSeasonStart(now)) {
    await context.deps.engine.request("mutation ResetSeason { update_player(where: {}, _set: {seasonXP: 0}) { affected_rows } }");
  }
  const updates = playerUpdates(file.accounts as LedgerAccount[], now);
  const done = await pool(updates, CONCURRENCY, (update) => updatePlayer(update, context));
  const numUpdated = done.filter(Boolean).length;
  return { message: "XP migrated from SourceCred", numUpdated, numSkipped: updates.length - numUpdated };
}
