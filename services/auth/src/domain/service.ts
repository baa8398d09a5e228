/**
 * The auth domain as one object: what the HTTP layer (and later the admin endpoints) call.
 * Each operation takes the request facts (RequestMeta) and already-parsed input.
 */

import type { Meter } from "@opentelemetry/api";
import type { Database, Logger } from "@platform/core";
import type { AuthConfig } from "../config.js";
import { authTables } from "../db/tables.js";
import { signInAnonymously } from "./anonymous.js";
import type { AuthDeps, RequestMeta } from "./context.js";
import { authenticate } from "./current-user.js";
import { errors } from "./errors.js";
import { type AuthorizeInput, authorizeUrl, type CallbackAnswer, type CallbackInput, callback } from "./external/flow.js";
import { type IdTokenGrantInput, idTokenGrant } from "./external/id-token-grant.js";
import { unlinkIdentity } from "./external/linking.js";
import { isUuid } from "./identifiers.js";
import { KeyRing } from "./keys.js";
import { logout, parseLogoutScope } from "./logout.js";
import { type Messenger, reportingFailures, type SmsCodeChecker, undeliveredMessenger } from "./messenger.js";
import { sendNotices } from "./notifications.js";
import { type MagicLinkInput, magicLink, type OtpAnswer, type OtpInput, otp } from "./otp.js";
import { type PasswordGrantInput, passwordGrant } from "./password-grant.js";
import { PasswordHasher } from "./passwords.js";
import { pkceGrant } from "./pkce.js";
import { requestReauthentication } from "./reauthentication.js";
import { type RecoverInput, recover } from "./recover.js";
import { refreshTokenGrant } from "./refresh.js";
import { type ResendInput, resend } from "./resend.js";
import type { TokenResponse } from "./sessions.js";
import { health, settings } from "./settings.js";
import { type SignupInput, type SignupResult, signup } from "./signup.js";
import { refusingUnconfiguredSms } from "./sms-readiness.js";
import { UniformTiming } from "./uniform-timing.js";
import { loadUserJson, type UserJson } from "./user-json.js";
import { type UserUpdateInput, updateCurrentUser } from "./user-update.js";

export interface AuthServiceOptions {
  db: Database;
  config: AuthConfig;
  logger: Logger;
  /** Where the password-hashing counters go (a no-op meter by default). */
  meter?: Meter | undefined;
  /** Where one-time codes go; by default they are logged as undelivered. */
  messenger?: Messenger;
  /** The SMS provider's own code check, when it makes the codes (Twilio Verify). */
  smsCodes?: SmsCodeChecker | undefined;
}

export class AuthService {
  private constructor(readonly deps: AuthDeps) {}

  static async create(options: AuthServiceOptions): Promise<AuthService> {
    const { db, config, logger } = options;
    const tables = authTables(config.database.schema);
    const keys = await KeyRing.load(config.jwt, db, tables, logger);
    return new AuthService({
      db,
      tables,
      config,
      keys,
      passwords: new PasswordHasher(config.security.passwordHashCost, config.security.passwordHashConcurrency, options.meter),
      messenger: reportingFailures(refusingUnconfiguredSms(config.sms, options.messenger ?? undeliveredMessenger(logger)), logger),
      timing: new UniformTiming(),
      smsCodes: options.smsCodes,
      logger,
    });
  }

  get config(): AuthConfig {
    return this.deps.config;
  }

  health() {
    return health();
  }

  settings() {
    return settings(this.deps.config);
  }

  jwks() {
    return this.deps.keys.jwks();
  }

  /** POST /signup: anonymous when neither email nor phone is given. */
  signup(meta: RequestMeta, input: SignupInput): Promise<SignupResult> {
    if (!input.email && !input.phone) return signInAnonymously(this.deps, meta, input.data).then((session) => ({ session }));
    return signup(this.deps, meta, input);
  }

  /** POST /recover: `{}` for known and unknown addresses alike; `redirectTo` is already validated. */
  recover(meta: RequestMeta, input: RecoverInput, redirectTo: string): Promise<Record<string, never>> {
    return recover(this.deps, meta, input, redirectTo);
  }

  /** POST /otp: an emailed magic link or an SMS code; `redirectTo` is already validated. */
  otp(meta: RequestMeta, input: OtpInput, redirectTo: string): Promise<OtpAnswer> {
    return otp(this.deps, meta, input, redirectTo);
  }

  /** POST /magiclink. */
  magicLink(meta: RequestMeta, input: MagicLinkInput, redirectTo: string): Promise<OtpAnswer> {
    return magicLink(this.deps, meta, input, redirectTo);
  }

  /** POST /resend. */
  resend(meta: RequestMeta, input: ResendInput, redirectTo: string): Promise<OtpAnswer> {
    return resend(this.deps, meta, input, redirectTo);
  }

  /** POST /token?grant_type=... */
  token(
    meta: RequestMeta,
    grantType: string | undefined,
    input: PasswordGrantInput &
      IdTokenGrantInput & {
        refreshToken?: string | undefined;
        authCode?: string | undefined;
        codeVerifier?: string | undefined;
        authorization?: string | undefined;
      },
  ): Promise<TokenResponse> {
    if (grantType === "password") return passwordGrant(this.deps, meta, input);
    if (grantType === "id_token") {
      return idTokenGrant(this.deps, meta, input, async () => {
        if (!input.authorization) throw errors.idTokenInvalid("Linking requires a valid user access token in Authorization");
        return (await this.authenticate(meta, input.authorization)).user;
      });
    }
    if (grantType === "refresh_token") return refreshTokenGrant(this.deps, meta, input.refreshToken);
    if (grantType === "pkce") return pkceGrant(this.deps, meta, input);
    // Neither Solana nor Ethereum sign-in exists here: GoTrue's answer with both disabled.
    if (grantType === "web3") throw errors.web3Disabled();
    throw errors.unsupportedGrantType();
  }

  authenticate(meta: RequestMeta, authorization: string | undefined) {
    return authenticate(this.deps, meta, authorization);
  }

  async getUser(meta: RequestMeta, authorization: string | undefined): Promise<UserJson> {
    const { user } = await this.authenticate(meta, authorization);
    return loadUserJson(this.deps.db, this.deps.tables, user);
  }

  async updateUser(meta: RequestMeta, authorization: string | undefined, input: UserUpdateInput): Promise<UserJson> {
    return updateCurrentUser(this.deps, meta, await this.authenticate(meta, authorization), input);
  }

  async reauthenticate(meta: RequestMeta, authorization: string | undefined) {
    const { user } = await this.authenticate(meta, authorization);
    return requestReauthentication(this.deps, meta, user);
  }

  /** GET /authorize: the provider's URL to send the browser to. */
  authorize(input: AuthorizeInput): Promise<string> {
    return authorizeUrl(this.deps, input);
  }

  /** GET|POST /callback: where the browser goes next. */
  callback(meta: RequestMeta, params: URLSearchParams, log?: CallbackInput["log"]): Promise<CallbackAnswer> {
    return callback(this.deps, meta, { params, log });
  }

  /** GET /user/identities/authorize: as /authorize, the new identity to be linked to the signed-in user. */
  async linkIdentity(meta: RequestMeta, authorization: string | undefined, input: AuthorizeInput): Promise<string> {
    if (!this.deps.config.security.manualLinkingEnabled) throw errors.manualLinkingDisabled();
    const { user } = await this.authenticate(meta, authorization);
    return authorizeUrl(this.deps, input, user);
  }

  /** DELETE /user/identities/{id}. */
  async unlinkIdentity(meta: RequestMeta, authorization: string | undefined, identityId: string): Promise<Record<string, never>> {
    if (!this.deps.config.security.manualLinkingEnabled) throw errors.manualLinkingDisabled();
    const { user } = await this.authenticate(meta, authorization);
    if (!isUuid(identityId)) throw errors.identityIdNotUuid();
    const recipient = user.email ?? "";
    const result = await unlinkIdentity(this.deps, meta, user, identityId);
    if (recipient !== "") {
      await sendNotices(this.deps, [
        { kind: "identity_unlinked_notification", user: { ...result.user, email: recipient }, provider: result.provider },
      ]);
    }
    return {};
  }

  /** POST /logout: the token is checked before the scope, as GoTrue does. */
  async logout(meta: RequestMeta, authorization: string | undefined, scope: string | undefined): Promise<void> {
    const auth = await this.authenticate(meta, authorization);
    return logout(this.deps, meta, auth, parseLogoutScope(scope));
  }
}
