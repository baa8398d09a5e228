/**
 * LinkedIn's legacy sign-in, "linkedin" (supabase/auth internal/api/provider/linkedin.go; the
 * OpenID Connect one is linkedin_oidc): the OAuth 2.0 endpoints and the v2 API at
 * api.linkedin.com (EXTERNAL_LINKEDIN_URL when set), scopes r_emailaddress and r_liteprofile.
 * The profile from /v2/me (names localized in the member's preferred locale), the address from
 * /v2/emailAddress: LinkedIn gives only the primary address, which it has verified. Where
 * GoTrue's reading panics (no localized name for the preferred locale, no address element, a
 * picture without identifiers), the profile is refused.
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

const ME = "/v2/me?projection=(id,firstName,lastName,profilePicture(displayImage~:playableStreams))";
const EMAIL = "/v2/emailAddress?q=members&projection=(elements*(handle~))";

/** GoTrue's GetName: the localized value for `<language>_<country>` of the preferred locale. */
function localizedName(value: unknown): string {
  const name = record(value);
  const locale = record(name.preferredLocale);
  const key = `${text(locale.language)}_${text(locale.country)}`;
  const localized = name.localized;
  const entry = localized !== null && typeof localized === "object" ? (localized as Record<string, unknown>)[key] : undefined;
  if (typeof entry !== "string") throw new Error(`linkedin: no name localized for ${key}`);
  return entry;
}

function pictureOf(user: Record<string, unknown>): string {
  const elements = record(record(user.profilePicture)["displayImage~"]).elements;
  if (!Array.isArray(elements) || elements.length === 0) return "";
  const identifiers = record(elements[0]).identifiers;
  if (!Array.isArray(identifiers) || identifiers.length === 0) throw new Error("linkedin: a profile picture without identifiers");
  return text(record(identifiers[0]).identifier);
}

export const linkedin: ProviderSpec = {
  scopes: ["r_emailaddress", "r_liteprofile"],
  endpoints: ({ config }) => {
    const host = chooseHost(config.url, "api.linkedin.com");
    return { authorize: `${host}/oauth/v2/authorization`, token: `${host}/oauth/v2/accessToken` };
  },
  async userData(calls, tokens) {
    const host = chooseHost(calls.config.url, "api.linkedin.com");
    const user = record(await calls.getJson(`${host}${ME}`, tokens));
    const elements = record(await calls.getJson(`${host}${EMAIL}`, tokens)).elements;
    if (!Array.isArray(elements) || elements.length === 0) throw new Error("linkedin: no email address element");
    const email = text(record(record(elements[0])["handle~"]).emailAddress);
    const id = text(user.id);
    const picture = pictureOf(user);
    const name = `${localizedName(user.firstName)} ${localizedName(user.lastName)}`.trim();
    return {
      emails: email ? [{ email, verified: true, primary: true }] : [],
      claims: claims({
        iss: host,
        sub: id,
        name,
        picture,
        email,
        email_verified: true,
        avatar_url: picture,
        full_name: name,
        provider_id: id,
      }),
    };
  },
};
