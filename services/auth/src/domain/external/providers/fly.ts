/**
 * Fly.io (supabase/auth internal/api/provider/fly.go): the OAuth 2.0 endpoints at api.fly.io
 * (EXTERNAL_FLY_URL when set), scope `read` (the only one Fly has); the user from the token's
 * own description, /oauth/token/info, whose address counts as verified. The token's owner,
 * organizations, application, scopes and creation time go to custom_claims, present even when
 * empty, as in GoTrue.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

/** Go's decoding of `[]T`, `map[string]string`: null when absent. */
const listOrNull = <T>(value: unknown, item: (entry: unknown) => T): T[] | null => (Array.isArray(value) ? value.map(item) : null);

function applicationOf(value: unknown): Record<string, string> | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, text(entry)]));
}

export const fly: ProviderSpec = {
  scopes: ["read"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "api.fly.io");
    return { authorize: `${host}/oauth/authorize`, token: `${host}/oauth/token` };
  },
  async userData(calls, tokens) {
    const host = chooseHost(calls.config.url, "api.fly.io");
    const info = record(await calls.getJson(`${host}/oauth/token/info`, tokens));
    const id = text(info.user_id);
    const email = text(info.email);
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: host,
        sub: id,
        full_name: text(info.user_name),
        email,
        email_verified: true,
        provider_id: id,
        custom_claims: {
          resource_owner_id: text(info.resource_owner_id),
          organizations: listOrNull(info.organizations, (entry) => ({ id: text(record(entry).id), role: text(record(entry).role) })),
          application: applicationOf(info.application),
          scope: listOrNull(info.scope, text),
          created_at: typeof info.created_at === "number" ? Math.trunc(info.created_at) : 0,
        },
      }),
    };
  },
};
