/**
 * Kakao (supabase/auth internal/api/provider/kakao.go): the OAuth 2.0 endpoints at
 * kauth.kakao.com and the user at kapi.kakao.com/v2/user/me (both at EXTERNAL_KAKAO_URL when
 * set). Kakao takes the client credentials in the token request's body only (GoTrue's
 * AuthStyleInParams). The address is verified when Kakao says it is both verified and valid.
 * (Kakao's ID token, for grant_type=id_token, is read by id-token-profiles.ts.)
 */
import { chooseHost, claims, type ProviderSpec, record, text } from "../types.js";

/** Kakao's numeric id as Go decodes it into an int: absent is 0, anything but an integer fails. */
function idOf(value: unknown): string {
  if (value === undefined || value === null) return "0";
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new Error("kakao: the user id is not an integer");
  return String(value);
}

export const kakao: ProviderSpec = {
  scopes: ["account_email", "profile_image", "profile_nickname"],
  credentialsInBody: true,
  endpoints: ({ config }) => {
    const auth = chooseHost(config.url, "kauth.kakao.com");
    return { authorize: `${auth}/oauth/authorize`, token: `${auth}/oauth/token` };
  },
  async userData(calls, tokens) {
    const api = chooseHost(calls.config.url, "kapi.kakao.com");
    const user = record(await calls.getJson(`${api}/v2/user/me`, tokens));
    const account = record(user.kakao_account);
    const profile = record(account.profile);
    const id = idOf(user.id);
    const email = text(account.email);
    const nickname = text(profile.nickname);
    return {
      emails: email ? [{ email, verified: account.is_email_verified === true && account.is_email_valid === true, primary: true }] : [],
      claims: claims({
        iss: api,
        sub: id,
        name: nickname,
        preferred_username: nickname,
        avatar_url: text(profile.profile_image_url),
        full_name: nickname,
        provider_id: id,
        user_name: nickname,
      }),
    };
  },
};
