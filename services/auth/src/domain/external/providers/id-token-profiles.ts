/**
 * The profile each provider's ID token carries, as GoTrue reads it (supabase/auth
 * internal/api/provider/oidc.go parse*IDToken): used by the redirect flow of the OpenID Connect
 * providers and by grant_type=id_token.
 */
import { claims, type ProviderEmail, type ProviderUser, text } from "../types.js";

type Payload = Record<string, unknown>;

const primary = (email: string, verified: boolean): ProviderEmail[] => (email ? [{ email, verified, primary: true }] : []);

/** Booleans some providers send as strings ("true", "1"). */
function truthy(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") return value === "true" || value === "1" || value === "True" || value === "TRUE" || value === "t";
  return false;
}

export function googleProfile(p: Payload): ProviderUser {
  const email = text(p.email);
  const verified = truthy(p.email_verified) || truthy(p.verified_email);
  const sub = text(p.sub);
  return {
    emails: primary(email, verified),
    claims: claims({
      iss: text(p.iss),
      sub,
      name: text(p.name),
      picture: text(p.picture),
      avatar_url: text(p.picture),
      full_name: text(p.name),
      provider_id: sub,
      custom_claims: text(p.hd) ? { hd: text(p.hd) } : undefined,
    }),
  };
}

export function appleProfile(p: Payload): ProviderUser {
  const sub = text(p.sub);
  const custom: Record<string, unknown> = {};
  if (p.is_private_email !== undefined) custom.is_private_email = truthy(p.is_private_email);
  if (typeof p.auth_time === "number") custom.auth_time = p.auth_time;
  if (text(p.transfer_sub)) custom.transfer_sub = text(p.transfer_sub);
  // Apple's addresses are verified by Apple, the relay addresses included.
  return {
    emails: [{ email: text(p.email), verified: true, primary: true }].filter((e) => e.email !== ""),
    claims: claims({ iss: text(p.iss), sub, provider_id: sub, custom_claims: custom }),
  };
}

/** Azure's `xms_edov` (email domain owner verified): when present it decides; otherwise an address counts as verified. */
function azureVerified(p: Payload): boolean {
  const email = text(p.email);
  if (p.xms_edov === undefined || p.xms_edov === null) return email !== "";
  return email !== "" && truthy(p.xms_edov);
}

const AZURE_NOT_CUSTOM = [
  "aud",
  "iss",
  "iat",
  "nbf",
  "exp",
  "c_hash",
  "at_hash",
  "aio",
  "nonce",
  "rh",
  "uti",
  "jti",
  "ver",
  "sub",
  "name",
  "preferred_username",
];

export function azureProfile(p: Payload): ProviderUser {
  const sub = text(p.sub);
  const custom: Record<string, unknown> = { ...p };
  for (const key of AZURE_NOT_CUSTOM) delete custom[key];
  return {
    emails: primary(text(p.email), azureVerified(p)),
    claims: claims({
      iss: text(p.iss),
      sub,
      provider_id: sub,
      preferred_username: text(p.preferred_username),
      full_name: text(p.name),
      custom_claims: custom,
    }),
  };
}

/** Go's strconv.ParseBool, which GoTrue applies to LinkedIn's string `email_verified`: anything else fails the sign-in. */
function goBool(value: unknown): boolean {
  if (typeof value === "string") {
    if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
    if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  }
  throw new Error(`linkedin: email_verified is not a boolean string: ${JSON.stringify(value)}`);
}

export function linkedinProfile(p: Payload): ProviderUser {
  const sub = text(p.sub);
  const verified = goBool(p.email_verified);
  const given = text(p.given_name);
  const family = text(p.family_name);
  return {
    emails: primary(text(p.email), verified),
    claims: claims({
      iss: text(p.iss),
      sub,
      name: `${given} ${family}`.trim(),
      given_name: given,
      family_name: family,
      locale: text(p.locale),
      picture: text(p.picture),
      provider_id: sub,
    }),
  };
}

export function kakaoProfile(p: Payload): ProviderUser {
  const sub = text(p.sub);
  return {
    emails: primary(text(p.email), true),
    claims: claims({
      iss: text(p.iss),
      sub,
      name: text(p.nickname),
      preferred_username: text(p.nickname),
      provider_id: sub,
      picture: text(p.picture),
    }),
  };
}

export function vercelMarketplaceProfile(p: Payload): ProviderUser {
  const sub = text(p.global_user_id) ? `global_user_id:${text(p.global_user_id)}` : text(p.sub);
  return {
    emails: [{ email: text(p.user_email), verified: true, primary: true }],
    claims: claims({ iss: text(p.iss), sub, provider_id: sub, name: text(p.user_name), picture: text(p.user_avatar_url) }),
  };
}

export function facebookProfile(p: Payload): ProviderUser {
  const sub = text(p.sub);
  const email = text(p.email);
  return {
    emails: primary(email, true),
    claims: claims({
      iss: text(p.iss),
      sub,
      name: text(p.name),
      picture: text(p.picture),
      provider_id: sub,
      email,
      email_verified: email !== "",
    }),
  };
}

/** Snapchat's ID token: the standard claims, its address verified (GoTrue's parseSnapchatIDToken). */
export function snapchatProfile(p: Payload): ProviderUser {
  const user = genericProfile(p);
  if (user.emails.length === 0) return user;
  return { emails: user.emails.map((e) => ({ ...e, verified: true })), claims: { ...user.claims, email_verified: true } };
}

/** The standard claims, for keycloak and any other issuer (GoTrue's parseGenericIDToken). */
export function genericProfile(p: Payload): ProviderUser {
  const known = [
    "iss",
    "sub",
    "aud",
    "iat",
    "exp",
    "name",
    "family_name",
    "given_name",
    "middle_name",
    "nickname",
    "preferred_username",
    "profile",
    "picture",
    "website",
    "gender",
    "birthdate",
    "zoneinfo",
    "locale",
    "updated_at",
    "email",
    "email_verified",
    "phone",
    "phone_verified",
    "custom_claims",
    "full_name",
    "avatar_url",
    "slug",
    "provider_id",
    "user_name",
  ];
  const values: Record<string, unknown> = { sub: text(p.sub) };
  for (const key of known) if (key in p && key !== "sub") values[key] = p[key];
  values.email_verified = truthy(p.email_verified);
  values.phone_verified = truthy(p.phone_verified);
  const email = text(p.email);
  return { emails: primary(email, values.email_verified === true), claims: claims(values as { sub: string }) };
}
