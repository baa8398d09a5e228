/**
 * Reading a SourceCred instance's `output/accounts.json` (what MetaGame fetched from its XP
 * instance) into the updates MetaGame makes: per ledger identity of subtype USER with an Ethereum
 * alias, its total XP (`totalCred`), its season XP (the weekly `cred` of the current season),
 * its rank by total XP, its Discord id and its linked accounts. Aliases are SourceCred node
 * addresses: parts joined and ended by NUL, starting with "N" (SourceCred's NodeAddress,
 * src/core/graph.js in github.com/sourcecred/sourcecred).
 */

export interface LedgerAlias {
  address: string;
  description?: string;
}

export interface LedgerAccount {
  account: { identity: { subtype?: string; aliases?: LedgerAlias[] } };
  cred?: number[];
  totalCred?: number;
}

export interface PlayerUpdate {
  ethereumAddress: string;
  totalXP: number;
  seasonXP: number;
  rank: string | null;
  discordId: string | null;
  /** Linked accounts other than Discord (which is the player's own column). */
  accounts: Array<{ type: string; identifier: string }>;
}

/** The ranks and how many of the top players hold each, highest first (MetaGame's rankHelpers). */
const RANKED: Array<[string, number]> = [
  ["DIAMOND", 7],
  ["PLATINUM", 7],
  ["GOLD", 7],
  ["SILVER", 14],
  ["BRONZE", 21],
];

/** Alias platforms that are AccountType values. */
const ACCOUNT_TYPES = new Set(["ETHEREUM", "DISCORD", "DISCOURSE", "GITHUB", "TWITTER"]);

export function rankAt(index: number): string | null {
  let upTo = 0;
  for (const [rank, count] of RANKED) {
    upTo += count;
    if (index < upTo) return rank;
  }
  return null;
}

/** A node address's parts: `N\0a\0b\0` -> [a, b]; null when it is not one. */
export function addressParts(address: string): string[] | null {
  if (!address.startsWith("N\0") || !address.endsWith("\0")) return null;
  return address.slice(2, -1).split("\0");
}

const WEEK_MS = 7 * 24 * 3600 * 1000;

/** Seasons start on 20 March, 21 June, 22 September and 21 December (UTC). */
export function seasonStart(now: Date): Date {
  const year = now.getUTCFullYear();
  const starts = [
    Date.UTC(year - 1, 11, 21),
    Date.UTC(year, 2, 20),
    Date.UTC(year, 5, 21),
    Date.UTC(year, 8, 22),
    Date.UTC(year, 11, 21),
  ].filter((start) => start <= now.getTime());
  return new Date(Math.max(...starts));
}

/** The weeks of the season so far, counting the one under way. */
export const weeksInSeason = (now: Date) => Math.ceil((now.getTime() - seasonStart(now).getTime()) / WEEK_MS);

/** Whether today (UTC) is the first day of a season, when everyone's season XP starts again at 0. */
export function isSeasonStart(now: Date): boolean {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) === seasonStart(now).getTime();
}

function linked(alias: LedgerAlias): { type: string; identifier: string } | null {
  const parts = addressParts(alias.address);
  const type = parts?.[1]?.toUpperCase();
  const identifier = parts?.at(-1);
  return type && identifier && ACCOUNT_TYPES.has(type) ? { type, identifier } : null;
}

/** The identity's latest Ethereum alias (the ledger lists aliases oldest first), lower-cased. */
function ethereumAddress(aliases: LedgerAlias[]): string | null {
  const addresses = aliases.filter(
    (alias) => (addressParts(alias.address)?.indexOf("ethereum") ?? -1) > 0 && /^0x[0-9a-fA-F]{40}$/.test(alias.description ?? ""),
  );
  return addresses.at(-1)?.description?.toLowerCase() ?? null;
}

/** The player updates of a ledger: users by total XP, ranked by that order (also counting users without an address). */
export function playerUpdates(accounts: LedgerAccount[], now: Date): PlayerUpdate[] {
  const weeks = weeksInSeason(now);
  return accounts
    .filter((a) => a.account?.identity?.subtype === "USER")
    .sort((a, b) => (b.totalCred ?? 0) - (a.totalCred ?? 0))
    .flatMap((a, index) => {
      const aliases = a.account.identity.aliases ?? [];
      const address = ethereumAddress(aliases);
      if (!address) return [];
      const all = aliases.map(linked).filter((x) => x !== null);
      const cred = a.cred ?? [];
      return [
        {
          ethereumAddress: address,
          totalXP: a.totalCred ?? 0,
          seasonXP: weeks > 0 ? cred.slice(-weeks).reduce((sum, week) => sum + week, 0) : 0,
          rank: rankAt(index),
          discordId: all.find((x) => x.type === "DISCORD")?.identifier ?? null,
          accounts: all.filter((x) => x.type !== "DISCORD"),
        },
      ];
    });
}
