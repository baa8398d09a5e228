/**
 * WorkOS SSO (supabase/auth internal/api/provider/workos.go): api.workos.com (or
 * EXTERNAL_WORKOS_URL) /sso/authorize and /sso/token, no scopes. The profile comes with the
 * token answer (`profile`), so nothing more is fetched; its address counts as verified. The
 * authorize request's `connection`, `organization` and `workos_provider` (sent as `provider`)
 * pass through to WorkOS (flow.ts).
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

export const workos: ProviderSpec = {
  scopes: [],
  fixedScopes: true,
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "api.workos.com");
    return { authorize: `${host}/sso/authorize`, token: `${host}/sso/token` };
  },
  async userData(calls, tokens) {
    const profile = record(tokens.raw.profile);
    const id = text(profile.id);
    const email = text(profile.email);
    const name = `${text(profile.first_name)} ${text(profile.last_name)}`.trim();
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: chooseHost(calls.config.url, "api.workos.com"),
        sub: id,
        name,
        custom_claims: { connection_id: text(profile.connection_id), organization_id: text(profile.organization_id) },
        full_name: name,
        provider_id: id,
      }),
    };
  },
};
