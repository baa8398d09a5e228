/**
 * The redirect flow of an external sign-in (GoTrue's ExternalProviderRedirect and
 * ExternalProviderCallback, supabase/auth internal/api/external.go and external_oauth.go).
 *
 * GET /authorize stores a flow_state row for every flow, PKCE or not, and sends the browser to
 * the provider with the row's id as `state`. The provider sends it back to GET (or, for Apple,
 * POST) /callback, which exchanges the code, reads the user, signs them in or up (or links the
 * identity to a signed-in user) and redirects to the flow's redirect_to: with `?code=` in a PKCE
 * flow (then POST /token?grant_type=pkce), with the session in the fragment otherwise.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Queryable } from "@platform/core";
import type { ProviderConfig, ProviderName } from "../../config/providers.js";
import { PROVIDERS } from "../../config/providers.js";
import {
  claimOAuthFlow,
  deleteFlowState,
  deleteStaleFlows,
  type FlowStateRow,
  flowStateById,
  insertOAuthFlow,
} from "../../db/flow-states.js";
import { insertOAuthClientState, takeOAuthClientState } from "../../db/oauth-client-states.js";
import type { UserRow } from "../../db/rows.js";
import { findUserByConfirmationToken, findUserById } from "../../db/users.js";
import type { AuthDeps, RequestMeta } from "../context.js";
import { AuthError, errors } from "../errors.js";
import { sendNotices } from "../notifications.js";
import { challengeMethod, checkPkceParams } from "../pkce.js";
import { fragmentRedirect, OAUTH_ERRORS, sessionRedirect, withQuery } from "../redirect-urls.js";
import { startSession, type TokenResponse } from "../sessions.js";
import { millis } from "../time.js";
import { encodeValues } from "../url-encoding.js";
import { type AccountOutcome, acceptInvite, accountForExternalUser, type ExternalUser } from "./accounts.js";
import { CATALOG } from "./catalog.js";
import { linkIdentityToUser } from "./linking.js";
import { exchangeCode, getJson } from "./oauth-client.js";
import { verifyIdToken } from "./oidc.js";
import { withAppleName } from "./providers/apple.js";
import type { Endpoints, ProviderCalls, ProviderSpec, ProviderTokens, ProviderUser } from "./types.js";

/** Parameters the server sets itself; a client's are dropped, not forwarded (GoTrue's reservedOAuthParams). */
const RESERVED = new Set([
  "client_id",
  "client_secret",
  "redirect_uri",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "code_verifier",
]);

/** How often an instance deletes abandoned flows (each /authorize adds one; this bounds the table to a day's worth). */
const CLEANUP_EVERY_MS = 10_000;
const lastCleanup = new WeakMap<AuthDeps["tables"], number>();

async function cleanUp(deps: AuthDeps): Promise<void> {
  const last = lastCleanup.get(deps.tables) ?? 0;
  if (Date.now() - last < CLEANUP_EVERY_MS) return;
  lastCleanup.set(deps.tables, Date.now());
  try {
    await deleteStaleFlows(deps.db, deps.tables);
  } catch (error) {
    // The sign-in does not depend on it; the next /authorize after the interval tries again.
    deps.logger.warn({ err: error }, "abandoned sign-in flows could not be deleted");
  }
}

/** GoTrue's lifetime of an oauth_client_states row. */
const CLIENT_STATE_MS = 10 * 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuthorizeInput {
  provider: string;
  scopes?: string | undefined;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: string | undefined;
  /** The request's query, in order: what is not the server's own goes to the provider. */
  query: [string, string][];
  /** redirect_to, already checked against the allow list. */
  referrer: string;
  /** An invite's token hash: the provider's identity then joins the invited account. */
  inviteToken?: string | undefined;
}

/** GoTrue's ValidateOAuth: the reason an enabled provider cannot be used, if any. */
function unusable(name: string, config: ProviderConfig | undefined, spec: ProviderSpec | undefined): string | undefined {
  if (!config || !(PROVIDERS as readonly string[]).includes(name)) return `Provider ${name} could not be found`;
  if (!config.enabled) return "provider is not enabled";
  if (!config.clientId) return "missing OAuth client ID";
  if (!config.secret) return "missing OAuth secret";
  if (!config.redirectUri) return "missing redirect URI";
  if (!spec) return `Provider ${name} could not be found`;
  return undefined;
}

function provider(deps: AuthDeps, raw: string, fail: (reason: string) => AuthError) {
  const name = raw.toLowerCase() as ProviderName;
  const config = deps.config.external.providers[name] as ProviderConfig | undefined;
  const spec = CATALOG[name];
  const reason = unusable(name, config, spec);
  if (reason) throw fail(reason);
  return { name, config: config as ProviderConfig, spec: spec as ProviderSpec };
}

function calls(name: ProviderName, config: ProviderConfig): ProviderCalls {
  return { name, config, getJson, verifyIdToken };
}

/** The provider's authorize URL for a new flow (GoTrue's GetExternalProviderRedirectURL); `linkingTarget` for manual linking. */
export async function authorizeUrl(deps: AuthDeps, input: AuthorizeInput, linkingTarget?: UserRow): Promise<string> {
  const { name, config, spec } = provider(deps, input.provider, errors.unsupportedProvider);
  if (input.inviteToken && !(await findUserByConfirmationToken(deps.db, deps.tables, input.inviteToken))) {
    throw errors.inviteTokenUserNotFound();
  }
  checkPkceParams(input);
  const pkce = input.codeChallenge
    ? { authCode: randomUUID(), codeChallenge: input.codeChallenge, codeChallengeMethod: challengeMethod(input.codeChallengeMethod ?? "") }
    : undefined;
  const id = randomUUID();
  let oauth1Url: string | undefined;
  if (spec.oauth1) {
    try {
      oauth1Url = await spec.oauth1.authorizeUrl(config, id);
    } catch (error) {
      deps.logger.error({ err: error, provider: name }, "the provider refused a request token");
      throw errors.requestTokenFailed();
    }
  }
  let endpoints: Endpoints | undefined;
  try {
    endpoints = spec.oauth1 ? undefined : await spec.endpoints(calls(name, config));
  } catch (error) {
    // GoTrue builds the provider (discovery included) per request and answers 400 when it cannot.
    deps.logger.warn({ err: error, provider: name }, "the provider's endpoints could not be read");
    throw errors.unsupportedProvider((error as Error).message);
  }
  const scopes = [...spec.scopes, ...(input.scopes && !spec.fixedScopes ? input.scopes.split(",") : [])];
  const params = new Map<string, string>([
    ["client_id", config.clientId as string],
    ["redirect_uri", config.redirectUri as string],
    ["response_type", "code"],
  ]);
  if (scopes.length > 0) params.set("scope", scopes.join(" "));
  for (const [key, value] of Object.entries(spec.authorizeParams ?? {})) params.set(key, value);
  for (const [key, value] of input.query) {
    const lower = key.toLowerCase();
    if (key === "scopes" || key === "provider" || (RESERVED.has(lower) && lower !== "nonce")) continue;
    params.set(key === "workos_provider" ? "provider" : key, value);
  }
  const store = async (tx: Queryable) => {
    let oauthClientStateId: string | undefined;
    if (spec.requiresPkce) {
      const verifier = randomBytes(32).toString("base64url");
      oauthClientStateId = randomUUID();
      await insertOAuthClientState(tx, deps.tables, { id: oauthClientStateId, providerType: name, codeVerifier: verifier });
      params.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
      params.set("code_challenge_method", "S256");
    }
    await insertOAuthFlow(tx, deps.tables, {
      id,
      providerType: name,
      pkce,
      referrer: input.referrer,
      inviteToken: input.inviteToken || undefined,
      oauthClientStateId,
      linkingTargetId: linkingTarget?.id,
      emailOptional: config.emailOptional === true,
    });
  };
  // One row needs no transaction; a provider requiring PKCE stores its verifier with the flow.
  await (spec.requiresPkce ? deps.db.transaction(store) : store(deps.db));
  await cleanUp(deps);
  if (oauth1Url) return oauth1Url;
  params.set("state", id);
  const url = new URL((endpoints as Endpoints).authorize);
  const query = encodeValues([...new URLSearchParams(url.search), ...params]);
  return `${url.origin}${url.pathname}?${query}`;
}

export interface CallbackInput {
  /** The query (GET) or the form (POST). */
  params: URLSearchParams;
  /** The request's logger (it carries the request id); the service's by default. */
  log?: Pick<AuthDeps["logger"], "error"> | undefined;
}

export type CallbackAnswer = { status: 302 | 303; location: string };

/** The flow a callback's `state` names, as GoTrue's loadFlowState checks it. */
async function loadFlow(deps: AuthDeps, state: string | null): Promise<{ flow: FlowStateRow; target?: UserRow | undefined }> {
  if (!state) throw errors.oauthStateMissing();
  if (!UUID.test(state)) throw errors.oauthStateInvalid();
  const flow = await flowStateById(deps.db, deps.tables, state);
  if (flow?.authentication_method !== "oauth") throw errors.oauthStateNotFound();
  if (millis(flow.created_at) + deps.config.external.flowStateExpiryMs < Date.now()) throw errors.oauthStateExpired();
  if (flow.code_challenge && flow.user_id) throw errors.flowStateAlreadyUsed();
  if (!flow.linking_target_id) return { flow };
  const target = await findUserById(deps.db, deps.tables, flow.linking_target_id);
  if (!target) throw errors.linkingTargetNotFound();
  return { flow, target };
}

/** GoTrue's getErrorQueryString: `error` by status (or the provider's own), `error_code`, `error_description`. */
function errorValues(error: AuthError): [string, string][] {
  if (error.details?.oauth)
    return [
      ["error", error.details.oauth.error],
      ["error_description", error.details.oauth.description],
    ];
  const denied = ["signup_disabled", "user_banned", "provider_email_needs_verification"].includes(error.code);
  return [
    ["error", denied ? "access_denied" : (OAUTH_ERRORS[error.status] ?? "server_error")],
    ["error_description", error.message],
    ["error_code", error.code],
  ];
}

/** GoTrue's redirectErrors: the error in the query, and again in the fragment with `sb`. */
const errorRedirect = (target: string, error: AuthError): string => fragmentRedirect(target, errorValues(error), true);

async function oauth1User(deps: AuthDeps, flow: FlowStateRow, params: URLSearchParams) {
  const { name, config, spec } = provider(deps, flow.provider_type, errors.providerNotSupported);
  try {
    return { name, ...(await (spec.oauth1 as NonNullable<ProviderSpec["oauth1"]>).callback(config, params)) };
  } catch (error) {
    deps.logger.warn({ err: error, provider: name }, "the provider refused the OAuth 1.0a exchange");
    throw errors.accessTokenFailed();
  }
}

async function providerUser(deps: AuthDeps, flow: FlowStateRow, params: URLSearchParams) {
  if (CATALOG[flow.provider_type as ProviderName]?.oauth1) return oauth1User(deps, flow, params);
  const providerError = params.get("error");
  if (providerError) throw errors.providerRefused(providerError, params.get("error_description") ?? "");
  const code = params.get("code");
  if (!code) throw errors.oauthCodeMissing();
  const { name, config, spec } = provider(deps, flow.provider_type, errors.providerNotSupported);
  let verifier: string | undefined;
  if (flow.oauth_client_state_id) {
    const row = await takeOAuthClientState(deps.db, deps.tables, flow.oauth_client_state_id);
    if (!row) throw errors.oauthClientStateNotFound();
    if (row.provider_type !== name) throw errors.oauthProviderMismatch();
    if (millis(row.created_at) + CLIENT_STATE_MS < Date.now()) throw errors.oauthClientStateExpired();
    verifier = row.code_verifier ?? undefined;
  }
  if (spec.requiresPkce && !verifier) throw errors.oauthVerifierMissing();
  const providerCalls = calls(name, config);
  let tokens: ProviderTokens;
  try {
    tokens = await exchangeCode(config, await spec.endpoints(providerCalls), code, { verifier, credentialsInBody: spec.credentialsInBody });
  } catch (error) {
    deps.logger.warn({ err: error, provider: name }, "the provider refused the code exchange");
    throw errors.codeExchangeFailed(code);
  }
  let user: ProviderUser;
  try {
    user = await spec.userData(providerCalls, tokens);
  } catch (error) {
    deps.logger.warn({ err: error, provider: name }, "the provider's user could not be read");
    throw errors.providerProfileFailed();
  }
  if (name === "apple") user = withAppleName(user, params.get("user") ?? undefined);
  return { name, tokens, user };
}

/** The address the callback keeps: the first primary one, else the last (GoTrue's loop in the callback). */
export function chosenEmail(user: ProviderUser): { email: string; verified: boolean } {
  let chosen = { email: "", verified: false };
  for (const entry of user.emails) {
    chosen = { email: entry.email, verified: entry.verified };
    if (entry.primary) break;
  }
  return chosen;
}

/** GET|POST /callback: where to send the browser. */
export async function callback(deps: AuthDeps, meta: RequestMeta, input: CallbackInput): Promise<CallbackAnswer> {
  let loaded: Awaited<ReturnType<typeof loadFlow>>;
  try {
    loaded = await loadFlow(deps, input.params.get("state"));
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    const values = errorValues(error);
    return { status: 303, location: withQuery(deps.config.siteUrl, values) };
  }
  const { flow, target } = loaded;
  const redirectTo = deps.config.external.redirectUrl ?? (flow.referrer || deps.config.siteUrl);
  const log = input.log ?? deps.logger;
  try {
    return { status: 302, location: await complete(deps, meta, flow, target, input.params, redirectTo) };
  } catch (error) {
    // The browser goes back to the app either way, with GoTrue's error parameters; what went
    // wrong unexpectedly is logged with its stack and answered without its text.
    if (!(error instanceof AuthError)) {
      log.error({ err: error }, "the external sign-in failed unexpectedly");
      return { status: 302, location: errorRedirect(redirectTo, errors.unexpectedFailure()) };
    }
    if (error.status >= 500) log.error({ err: error, code: error.code }, error.message);
    return { status: 302, location: errorRedirect(redirectTo, error) };
  }
}

async function complete(
  deps: AuthDeps,
  meta: RequestMeta,
  flow: FlowStateRow,
  target: UserRow | undefined,
  params: URLSearchParams,
  redirectTo: string,
): Promise<string> {
  const { name, tokens, user } = await providerUser(deps, flow, params);
  if (user.emails.length === 0 && !flow.email_optional) throw errors.providerEmailMissing();
  if (!user.claims.sub) throw errors.providerProfileFailed();
  const chosen = chosenEmail(user);
  const external: ExternalUser = {
    provider: name,
    claims: user.claims,
    emails: user.emails,
    email: chosen.email,
    emailVerified: chosen.verified,
    emailOptional: flow.email_optional,
  };
  const pkce = flow.code_challenge !== null && flow.auth_code !== null;
  let linked: UserRow | undefined;
  type Outcome = { committedError: AuthError } | { code: string } | { session: TokenResponse };
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const account: AccountOutcome = target
      ? await linkIdentityToUser(tx, deps, meta, target, external)
      : flow.invite_token
        ? await acceptInvite(tx, deps, meta, flow.invite_token, external)
        : await accountForExternalUser(tx, deps, meta, external);
    if ("committedError" in account) return { committedError: account.committedError };
    if (target) linked = account.user;
    if (pkce) {
      const locked = await flowStateById(tx, deps.tables, flow.id, true);
      if (!locked) throw errors.oauthStateNotFound();
      if (locked.user_id) throw errors.flowStateAlreadyUsed();
      await claimOAuthFlow(tx, deps.tables, flow.id, {
        userId: account.user.id,
        providerAccessToken: tokens.accessToken,
        providerRefreshToken: tokens.refreshToken,
      });
      return { code: flow.auth_code as string };
    }
    const session = await startSession(tx, deps, meta, account.user, "oauth");
    await deleteFlowState(tx, deps.tables, flow.id);
    return { session };
  });
  if ("committedError" in outcome) throw outcome.committedError;
  if (linked) await sendNotices(deps, [{ kind: "identity_linked_notification", user: linked, provider: name }]);
  if ("code" in outcome) return withQuery(redirectTo, [["code", outcome.code]]);
  const providerTokens: [string, string][] = [["provider_token", tokens.accessToken]];
  if (tokens.refreshToken) providerTokens.push(["provider_refresh_token", tokens.refreshToken]);
  return sessionRedirect(redirectTo, outcome.session, providerTokens);
}
