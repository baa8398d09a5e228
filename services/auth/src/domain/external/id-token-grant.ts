/**
 * POST /token?grant_type=id_token (GoTrue's IdTokenGrant, supabase/auth
 * internal/api/token_oidc.go): a native app signs in with the ID token a provider's SDK gave it.
 * The token is verified with the issuer's published keys; its audience must be one of the
 * provider's CLIENT_IDs; when the request carries a nonce, the token's must be its SHA-256 (hex),
 * and they are present together or not at all; with `access_token`, `at_hash` must match it. The
 * account is then found, linked or created as for the redirect flow, or, with `link_identity`,
 * the identity is linked to the signed-in user.
 */
import { createHash } from "node:crypto";
import { decodeJwt } from "jose";
import type { ProviderConfig, ProviderName } from "../../config/providers.js";
import type { UserRow } from "../../db/rows.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import { type AuthError, errors } from "../errors.js";
import { startSession, type TokenResponse } from "../sessions.js";
import { type AccountOutcome, accountForExternalUser, type ExternalUser } from "./accounts.js";
import { chosenEmail } from "./flow.js";
import { linkIdentityToUser } from "./linking.js";
import { verifyIdToken } from "./oidc.js";
import { APPLE_ISSUERS } from "./providers/apple.js";
import { GOOGLE_ISSUER } from "./providers/google.js";
import {
  appleProfile,
  azureProfile,
  facebookProfile,
  genericProfile,
  googleProfile,
  kakaoProfile,
  snapchatProfile,
  vercelMarketplaceProfile,
} from "./providers/id-token-profiles.js";
import { SNAPCHAT_ISSUER } from "./providers/snapchat.js";
import { VERCEL_MARKETPLACE_ISSUER as VERCEL_ISSUER } from "./providers/vercel_marketplace.js";
import type { ProviderUser } from "./types.js";

export interface IdTokenGrantInput {
  idToken?: string | undefined;
  provider?: string | undefined;
  clientId?: string | undefined;
  issuer?: string | undefined;
  accessToken?: string | undefined;
  nonce?: string | undefined;
  linkIdentity?: boolean | undefined;
}

interface Resolved {
  providerType: string;
  /** Where the keys are discovered. */
  issuer: string;
  /** Whether `iss` must equal `issuer` (Apple's check is skipped, as GoTrue skips it). */
  checkIssuer: boolean;
  audiences: string[];
  enabled: boolean;
  skipNonceCheck: boolean;
  emailOptional: boolean;
  profile: (payload: Record<string, unknown>) => ProviderUser;
}

const FACEBOOK_ISSUER = "https://www.facebook.com";
const KAKAO_ISSUER = "https://kauth.kakao.com";

function tokenIssuer(idToken: string, provider: string): string {
  try {
    return String(decodeJwt(idToken).iss ?? "");
  } catch {
    throw errors.idTokenIssuerUndetected(provider);
  }
}

/** The provider an ID token is for, as GoTrue's IdTokenGrantParams.getProvider decides it. */
function resolve(deps: AuthDeps, input: IdTokenGrantInput, idToken: string): Resolved {
  const { providers, allowedIdTokenIssuers, iosBundleId } = deps.config.external;
  const name = input.provider ?? "";
  const requested = input.issuer ?? "";
  const of = (provider: ProviderName, issuer: string, profile: Resolved["profile"], extra: Partial<Resolved> = {}): Resolved => {
    const config: ProviderConfig = providers[provider];
    return {
      providerType: provider,
      issuer,
      checkIssuer: true,
      audiences: config.clientIds ?? [],
      enabled: config.enabled,
      skipNonceCheck: config.skipNonceCheck === true,
      emailOptional: config.emailOptional === true,
      profile,
      ...extra,
    };
  };
  const fixed = (provider: ProviderName, issuer: string) => providers[provider].testIssuer ?? issuer;
  const isTestIssuer = (provider: ProviderName, issuer: string) => providers[provider].testIssuer === issuer && issuer !== "";

  if (name === "apple" || APPLE_ISSUERS.includes(requested) || isTestIssuer("apple", requested)) {
    const detected = tokenIssuer(idToken, "Apple");
    if (!APPLE_ISSUERS.includes(detected) && !isTestIssuer("apple", detected)) throw errors.idTokenNotProviderIssuer("Apple");
    if (requested !== "" && requested !== detected) throw errors.idTokenIssuerMismatch();
    const audiences = [...(providers.apple.clientIds ?? []), ...(iosBundleId ? [iosBundleId] : [])];
    return of("apple", detected, appleProfile, { checkIssuer: false, audiences });
  }
  if (name === "google" || requested === GOOGLE_ISSUER || isTestIssuer("google", requested)) {
    return of("google", fixed("google", GOOGLE_ISSUER), googleProfile);
  }
  if (
    name === "azure" ||
    /^https:\/\/login[.]microsoftonline[.]com\/[^/]+\/v2[.]0\/?$/.test(requested) ||
    isTestIssuer("azure", requested)
  ) {
    const detected = tokenIssuer(idToken, "Azure");
    const microsoft = detected.startsWith("https://login.microsoftonline.com/") || detected.startsWith("https://sts.windows.net/");
    if (!microsoft && !isTestIssuer("azure", detected)) throw errors.idTokenNotProviderIssuer("Azure");
    if (requested !== "" && requested !== detected) throw errors.idTokenIssuerMismatch();
    return of("azure", detected, azureProfile);
  }
  if (name === "facebook" || requested === FACEBOOK_ISSUER || isTestIssuer("facebook", requested)) {
    // Facebook's Limited Login tokens carry a nonce the app cannot hash: never compared (as GoTrue).
    return of("facebook", fixed("facebook", FACEBOOK_ISSUER), facebookProfile, { skipNonceCheck: true });
  }
  const keycloak = providers.keycloak;
  if (name === "keycloak" || (keycloak.enabled && keycloak.url !== undefined && requested === keycloak.url)) {
    return of("keycloak", keycloak.url ?? "", genericProfile);
  }
  if (name === "kakao" || requested === KAKAO_ISSUER || isTestIssuer("kakao", requested))
    return of("kakao", fixed("kakao", KAKAO_ISSUER), kakaoProfile);
  if (name === "vercel_marketplace" || requested === VERCEL_ISSUER || isTestIssuer("vercel_marketplace", requested)) {
    return of("vercel_marketplace", fixed("vercel_marketplace", VERCEL_ISSUER), vercelMarketplaceProfile);
  }
  if (name === "snapchat" || requested === SNAPCHAT_ISSUER || isTestIssuer("snapchat", requested)) {
    return of("snapchat", fixed("snapchat", SNAPCHAT_ISSUER), snapchatProfile);
  }
  // Deprecated in GoTrue, still served: any issuer of ALLOWED_ID_TOKEN_ISSUERS with the request's client id.
  if (allowedIdTokenIssuers.includes(requested)) {
    const profile = requested === GOOGLE_ISSUER ? googleProfile : APPLE_ISSUERS.includes(requested) ? appleProfile : genericProfile;
    return {
      providerType: requested,
      issuer: requested,
      checkIssuer: !APPLE_ISSUERS.includes(requested),
      audiences: input.clientId ? [input.clientId] : [],
      enabled: true,
      skipNonceCheck: false,
      emailOptional: false,
      profile,
    };
  }
  throw errors.idTokenIssuerNotAllowed(name);
}

const audienceList = (aud: unknown): string[] => (Array.isArray(aud) ? aud.map(String) : typeof aud === "string" ? [aud] : []);

async function verified(deps: AuthDeps, input: IdTokenGrantInput, idToken: string) {
  const resolved = resolve(deps, input, idToken);
  if (!resolved.enabled) throw errors.idTokenProviderDisabled(resolved.issuer);
  let payload: Record<string, unknown>;
  try {
    payload = await verifyIdToken(idToken, {
      discoveryIssuer: resolved.issuer,
      issuer: resolved.checkIssuer ? resolved.issuer : () => true,
      accessToken: input.accessToken || undefined,
    });
  } catch (error) {
    deps.logger.info({ err: error, provider: resolved.providerType }, "an ID token was refused");
    throw errors.idTokenInvalid("Bad ID token");
  }
  const user = resolved.profile(payload);
  if (!payload.sub) throw errors.idTokenInvalid("Missing sub claim in id_token");
  const audiences = audienceList(payload.aud);
  if (!resolved.audiences.some((id) => id !== "" && audiences.includes(id))) {
    throw errors.idTokenInvalid(`Unacceptable audience in id_token: [${audiences.join(" ")}]`);
  }
  if (!resolved.skipNonceCheck) {
    const tokenNonce = typeof payload.nonce === "string" ? payload.nonce : "";
    const nonce = input.nonce ?? "";
    if ((tokenNonce !== "") !== (nonce !== ""))
      throw errors.idTokenInvalid("Passed nonce and nonce in id_token should either both exist or not.");
    if (nonce !== "" && createHash("sha256").update(nonce).digest("hex") !== tokenNonce)
      throw errors.idTokenInvalid("Nonces mismatch", "invalid nonce");
  }
  return { resolved, user };
}

export async function idTokenGrant(
  deps: AuthDeps,
  meta: RequestMeta,
  input: IdTokenGrantInput,
  linkTarget: () => Promise<UserRow>,
): Promise<TokenResponse> {
  const idToken = input.idToken ?? "";
  if (idToken === "") throw errors.idTokenInvalid("id_token required");
  if (!input.provider && (!input.clientId || !input.issuer)) throw errors.idTokenInvalid("provider or client_id and issuer required");
  const target = input.linkIdentity ? await linkTarget() : undefined;
  const { resolved, user } = await verified(deps, input, idToken);
  const chosen = chosenEmail(user);
  const external: ExternalUser = {
    provider: resolved.providerType,
    claims: user.claims,
    emails: user.emails,
    email: chosen.email,
    emailVerified: chosen.verified,
    emailOptional: resolved.emailOptional,
  };
  const outcome = await deps.db.transaction(async (tx): Promise<{ session: TokenResponse } | { committedError: AuthError }> => {
    const account: AccountOutcome = target
      ? await linkIdentityToUser(tx, deps, meta, target, external)
      : await accountForExternalUser(tx, deps, meta, external);
    if ("committedError" in account) return account;
    return { session: await startSession(tx, deps, meta, account.user, "oauth") };
  });
  if ("committedError" in outcome) throw outcome.committedError;
  return outcome.session;
}
