/**
 * Where a player's public profile is read when the profile cache is refreshed. MetaGame read it
 * from Ceramic/IDX (packages/backend/src/handlers/actions/idxCache/updateSingle.ts); this backend
 * reads it from any HTTP service that keeps this small contract:
 *
 *   GET <PROFILE_SOURCE_URL>/<the player's lower-case Ethereum address>   (Accept: application/json)
 *   200 → a JSON object with any of the fields of PROFILE_FIELDS (as the GraphQL `profile` type
 *         names them) and optionally `accounts: [{type, identifier}]` (a player_account row each;
 *         `type` an AccountType such as "TWITTER"). A field present (null included) is written;
 *         a field left out keeps its cached value; other fields are ignored.
 *   404 → the address has no profile: only `last_checked_at` changes.
 *   anything else, or a body that breaks the contract → the refresh fails and is retried.
 */

export const PROFILE_TEXT_FIELDS = [
  "name",
  "description",
  "location",
  "countryCode",
  "emoji",
  "profileImageURL",
  "bannerImageURL",
  "backgroundImageURL",
  "website",
  "gender",
  "pronouns",
  "username",
  "timeZone",
  "explorerTypeTitle",
] as const;

export const PROFILE_INTEGER_FIELDS = ["availableHours", "colorMask"] as const;

export type ProfileField = (typeof PROFILE_TEXT_FIELDS)[number] | (typeof PROFILE_INTEGER_FIELDS)[number];

export interface SourceProfile {
  /** The fields to write, by their GraphQL names. */
  fields: Partial<Record<ProfileField, string | number | null>>;
  accounts: Array<{ type: string; identifier: string }>;
}

/** The source broke the contract (or could not be reached); the message says how. */
export class ProfileSourceError extends Error {
  override name = "ProfileSourceError";
}

/** Long enough for any real profile field, short enough that a broken source cannot fill the table. */
const MAX_TEXT = 10_000;
const MAX_ACCOUNTS = 50;

/** The profile of `address`, or null when the source has none. */
export async function readSourceProfile(
  fetchImpl: typeof fetch,
  baseUrl: string,
  address: string,
  signal: AbortSignal,
): Promise<SourceProfile | null> {
  const url = `${baseUrl}/${encodeURIComponent(address)}`;
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { accept: "application/json" }, signal });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ProfileSourceError(`the profile source could not be reached (${(error as Error).message})`);
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  const text = await response.text();
  if (response.status !== 200) throw new ProfileSourceError(`the profile source answered ${response.status} for ${address}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProfileSourceError(`the profile source answered a body that is not JSON for ${address}`);
  }
  return parseProfile(body, address);
}

export function parseProfile(body: unknown, address: string): SourceProfile {
  const invalid = (why: string) => new ProfileSourceError(`the profile source's profile of ${address} is invalid: ${why}`);
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalid("it is not a JSON object");
  const record = body as Record<string, unknown>;
  const fields: SourceProfile["fields"] = {};
  for (const name of PROFILE_TEXT_FIELDS) {
    if (!(name in record)) continue;
    const value = record[name];
    if (value !== null && (typeof value !== "string" || value.length > MAX_TEXT))
      throw invalid(`${name} must be a string of at most ${MAX_TEXT} characters or null`);
    fields[name] = value;
  }
  for (const name of PROFILE_INTEGER_FIELDS) {
    if (!(name in record)) continue;
    const value = record[name];
    if (value !== null && !(typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 2 ** 31 - 1))
      throw invalid(`${name} must be a non-negative integer or null`);
    fields[name] = value;
  }
  const accounts: SourceProfile["accounts"] = [];
  if (record.accounts !== undefined && record.accounts !== null) {
    if (!Array.isArray(record.accounts) || record.accounts.length > MAX_ACCOUNTS)
      throw invalid(`accounts must be a list of at most ${MAX_ACCOUNTS} {type, identifier} objects`);
    for (const account of record.accounts as unknown[]) {
      const { type, identifier } = (account ?? {}) as Record<string, unknown>;
      if (typeof type !== "string" || typeof identifier !== "string" || !type || !identifier || identifier.length > MAX_TEXT)
        throw invalid("each account must have a non-empty string type and identifier");
      accounts.push({ type, identifier });
    }
  }
  return { fields, accounts };
}
