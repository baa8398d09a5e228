/**
 * The auth service's error catalogue: every error it answers is made here, with GoTrue's
 * `error_code` (internal/api/apierrors/errorcode.go), HTTP status and message. The HTTP layer
 * renders them in the legacy or the 2024-01-01 body shape.
 */
import { AppError } from "@platform/core";

export interface AuthErrorDetails {
  /** weak_password errors carry the reasons (`length`, `characters`). */
  weakPassword?: { reasons: string[] };
  /** OAuth-style errors are answered as `{error, error_description}`. */
  oauth?: { error: string; description: string };
}

export class AuthError extends AppError {
  declare readonly details: AuthErrorDetails | undefined;
}

/**
 * An SMS provider refused a message or could not be reached. Not answered as is:
 * reportingFailures (messenger.ts) logs it and answers GoTrue's sms_send_failed with `reason`,
 * which says what the provider said (as GoTrue does) with credentials and the code taken out;
 * `details` (the HTTP status, the provider's error code) go to the log only.
 */
export class SmsProviderError extends Error {
  constructor(
    readonly reason: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(reason);
    this.name = "SmsProviderError";
  }
}

const make = (status: number, code: string, message: string, details?: AuthErrorDetails) => new AuthError(status, code, message, details);

export const INVALID_LOGIN = "Invalid login credentials";

export const errors = {
  validation: (message: string, status = 400) => make(status, "validation_failed", message),
  badJson: (reason?: string) =>
    make(400, "bad_json", reason ? `Could not parse request body as JSON: ${reason}` : "Could not parse request body as JSON"),
  bodyTooLarge: (limit: number) => make(413, "request_entity_too_large", `Request body too large (max ${limit} bytes)`),
  notFound: () => make(404, "not_found", "Not Found"),
  methodNotAllowed: () => make(405, "method_not_allowed", "Method Not Allowed"),

  signupDisabled: () => make(422, "signup_disabled", "Signups not allowed for this instance"),
  emailSignupsDisabled: () => make(400, "email_provider_disabled", "Email signups are disabled"),
  phoneSignupsDisabled: () => make(400, "phone_provider_disabled", "Phone signups are disabled"),
  emailLoginsDisabled: (status: 400 | 422 = 422) => make(status, "email_provider_disabled", "Email logins are disabled"),
  phoneLoginsDisabled: (status: 400 | 422 = 422) => make(status, "phone_provider_disabled", "Phone logins are disabled"),
  anonymousDisabled: () => make(422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled"),
  /** GoTrue's README documents 400 for a duplicate sign-up with autoconfirm (we keep it for phone); GoTrue uses 422 for email. */
  userAlreadyExists: (status: 400 | 422) => make(status, "user_already_exists", "User already registered"),
  emailExists: () => make(422, "email_exists", "A user with this email address has already been registered"),
  phoneExists: () => make(422, "phone_exists", "A user with this phone number has already been registered"),
  weakPassword: (message: string, reasons: string[]) => make(422, "weak_password", message, { weakPassword: { reasons } }),
  /** A value its column cannot hold (GoTrue's varchar(255) columns would fail with a database error). */
  tooLong: (what: string, max: number) => make(400, "validation_failed", `${what} cannot be longer than ${max} characters`),
  passwordTooLong: (max: number) => make(400, "validation_failed", `Password cannot be longer than ${max} characters`),

  invalidCredentials: () => make(400, "invalid_credentials", INVALID_LOGIN),
  unsupportedGrantType: () => make(400, "invalid_credentials", "unsupported_grant_type"),
  emailNotConfirmed: () => make(400, "email_not_confirmed", "Email not confirmed"),
  phoneNotConfirmed: () => make(400, "phone_not_confirmed", "Phone not confirmed"),
  userBanned: () => make(400, "user_banned", "User is banned"),

  refreshTokenRequired: () =>
    make(400, "invalid_request", "refresh_token required", { oauth: { error: "invalid_request", description: "refresh_token required" } }),
  refreshTokenNotFound: () => make(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"),
  refreshTokenAlreadyUsed: () => make(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used"),
  refreshUserBanned: () => make(400, "user_banned", "Invalid Refresh Token: User Banned"),
  refreshSessionNotFound: () => make(400, "session_not_found", "Invalid Refresh Token: No Valid Session Found"),
  refreshConflict: () => make(409, "conflict", "Too many concurrent token refresh requests on the same session or refresh token"),

  noAuthorization: () => make(401, "no_authorization", "This endpoint requires a valid Bearer token"),
  badJwt: (reason: string) => make(403, "bad_jwt", `invalid JWT: unable to parse or verify signature, ${reason}`),
  missingSub: () => make(403, "bad_jwt", "invalid claim: missing sub claim"),
  subNotUuid: () => make(400, "bad_jwt", "invalid claim: sub claim must be a UUID"),
  sessionIdNotUuid: () => make(403, "bad_jwt", "invalid claim: session_id claim must be a UUID"),
  audienceMismatch: () => make(400, "validation_failed", "Token audience doesn't match request audience"),
  userFromTokenNotFound: () => make(403, "user_not_found", "User from sub claim in JWT does not exist"),
  sessionFromTokenNotFound: () => make(403, "session_not_found", "Session from session_id claim in JWT does not exist"),
  bannedBearer: () => make(403, "user_banned", "User is banned"),

  appMetadataNotAllowed: () => make(403, "not_admin", "Updating app_metadata requires admin privileges"),
  anonymousPasswordWithoutIdentifier: () =>
    make(422, "validation_failed", "Updating password of an anonymous user without an email or phone is not allowed"),
  samePassword: () => make(422, "same_password", "New password should be different from the old password."),
  currentPasswordRequired: () => make(400, "current_password_required", "Current password required when setting new password."),
  currentPasswordInvalid: () => make(400, "current_password_invalid", "Current password required when setting new password."),
  reauthenticationNeeded: () => make(400, "reauthentication_needed", "Password update requires reauthentication"),
  reauthenticationNotValid: () => make(422, "reauthentication_not_valid", "Nonce has expired or is invalid"),
  reauthenticationNeedsIdentifier: () =>
    make(400, "validation_failed", "Reauthentication requires the user to have an email or a phone number"),
  verifyEmailFirst: () => make(422, "email_not_confirmed", "Please verify your email first."),
  verifyPhoneFirst: () => make(422, "phone_not_confirmed", "Please verify your phone first."),
  emailSendTooSoon: (seconds: number) =>
    make(429, "over_email_send_rate_limit", `For security purposes, you can only request this after ${seconds} seconds.`),
  smsSendTooSoon: (seconds: number) =>
    make(429, "over_sms_send_rate_limit", `For security purposes, you can only request this after ${seconds} seconds.`),
  /** A mail (or SMS) that could not be handed over; GoTrue gives it no code of its own. */
  messageNotSent: (message: string) => make(500, "unexpected_failure", message),
  rateLimited: () => make(429, "over_request_rate_limit", "Request rate limit reached"),
  /** RATE_LIMIT_EMAIL_SENT reached; GoTrue's message is lower-case (internal/api/mail.go, EmailRateLimitExceeded). */
  emailRateLimited: () => make(429, "over_email_send_rate_limit", "email rate limit exceeded"),
  /** RATE_LIMIT_SMS_SENT reached (internal/api/phone.go). */
  smsRateLimited: () => make(429, "over_sms_send_rate_limit", "SMS rate limit exceeded"),
  /** GoTrue (internal/api/phone.go) when its SMS provider cannot be set up, e.g. a credential is empty. */
  smsProviderUnavailable: () => make(500, "unexpected_failure", "Unable to get SMS provider"),
  /** GoTrue (internal/api/phone.go) when the provider refuses a message; `otpType` is confirmation, phone_change or reauthentication. */
  smsSendFailed: (otpType: string, reason: string) => make(422, "sms_send_failed", `Error sending ${otpType} OTP to provider: ${reason}`),
  /** GoTrue (internal/api/phone.go) when SMS_TEMPLATE cannot be rendered with the code. */
  smsTemplateFailed: () => make(500, "unexpected_failure", "error generating sms template"),

  // Captcha (supabase/auth internal/api/middleware.go verifyCaptcha).
  captchaTokenMissing: () => make(400, "captcha_failed", "captcha protection: request disallowed (no captcha_token found)"),
  captchaRefused: (errorCodes: readonly string[]) =>
    make(400, "captcha_failed", `captcha protection: request disallowed (${errorCodes.join(", ")})`),
  /** The provider could not be asked or did not answer; `cause` is logged with the request id, never answered. */
  captchaVerificationFailed: (cause: unknown) =>
    new AuthError(500, "unexpected_failure", "captcha verification process failed", undefined, { cause }),

  // Admin API, links and /verify.
  notAdmin: () => make(403, "not_admin", "User not allowed"),
  userIdNotUuid: () => make(404, "validation_failed", "user_id must be an UUID"),
  userNotFound: () => make(404, "user_not_found", "User not found"),
  linkUserNotFound: () => make(404, "user_not_found", "User with this email not found"),
  adminUserWithoutContact: () => make(400, "validation_failed", "Cannot create a user without either an email or phone"),
  passwordAndHash: () => make(400, "validation_failed", "Only a password or a password hash should be provided"),
  invalidPasswordHash: (reason: string) => make(400, "validation_failed", `Invalid password hash: ${reason}`),
  customIdInvalid: () => make(400, "validation_failed", "ID must conform to the uuid v4 format"),
  customIdNil: () => make(400, "validation_failed", "ID cannot be a nil uuid"),
  invalidBanDuration: (reason: string) => make(400, "validation_failed", `invalid format for ban duration: ${reason}`),
  badPagination: (reason: string) => make(400, "validation_failed", `Bad Pagination Parameters: ${reason}`),
  badSort: (reason: string) => make(400, "validation_failed", `Bad Sort Parameters: ${reason}`),
  invalidLinkType: (type: string) => make(400, "validation_failed", `Invalid email action link type requested: ${type}`),
  secureEmailChangeNeeded: () => make(400, "validation_failed", "Enable secure email change to generate link for current email"),
  invalidEmailVerificationType: () => make(400, "validation_failed", "Invalid email verification type"),
  emailLinkInvalid: () => make(403, "otp_expired", "Email link is invalid or has expired"),
  otpInvalid: () => make(403, "otp_expired", "Token has expired or is invalid"),

  // PKCE and /otp (GoTrue's internal/api/pkce.go, token.go, otp.go, magic_link.go, resend.go).
  flowStateNotFound: (message: string) => make(400, "flow_state_not_found", message),
  flowStateMissing: () => make(404, "flow_state_not_found", "invalid flow state, no valid flow state found"),
  flowStateExpired: () => make(422, "flow_state_expired", "invalid flow state, flow state has expired"),
  badCodeVerifier: () => make(400, "bad_code_verifier", "code challenge does not match previously saved code verifier"),
  otpSignupsDisabled: () => make(422, "otp_disabled", "Signups not allowed for otp"),
  magicLinkDisabled: () => make(422, "email_provider_disabled", "Login with magic link is disabled"),
  phoneProviderDisabled: () => make(400, "phone_provider_disabled", "Unsupported phone provider"),

  // External providers and identities (GoTrue's internal/api/external.go, external_oauth.go, identity.go).
  inviteTokenUserNotFound: () => make(404, "user_not_found", "User identified by token not found"),
  inviteNotFound: () => make(404, "invite_not_found", "Invite not found"),
  inviteEmailMismatch: () => make(400, "validation_failed", "Invited email does not match emails from external provider"),
  // Features this service does not have, answered as GoTrue answers while they are disabled
  // (internal/api/middleware.go require*Enabled, web3.go).
  samlDisabled: () => make(404, "saml_provider_disabled", "SAML 2.0 is disabled"),
  oauthServerDisabled: () => make(404, "feature_disabled", "OAuth server is disabled"),
  customProvidersDisabled: () => make(404, "feature_disabled", "Custom OAuth providers are disabled"),
  passkeysDisabled: () => make(404, "passkey_disabled", "Passkeys are disabled"),
  web3Disabled: () => make(422, "web3_provider_disabled", "Web3 provider is disabled"),
  ssoProviderNotFound: () => make(404, "sso_provider_not_found", "SSO Identity Provider not found"),
  passkeyNotFound: () => make(404, "validation_failed", "Passkey not found"),
  unexpectedFailure: () => make(500, "unexpected_failure", "Unexpected failure, please check server logs for more information"),
  unsupportedProvider: (reason: string) => make(400, "validation_failed", `Unsupported provider: ${reason}`),
  providerNotSupported: (reason: string) => make(400, "oauth_provider_not_supported", `Unsupported provider: ${reason}`),
  oauthStateMissing: () => make(400, "bad_oauth_callback", "OAuth state parameter missing"),
  oauthStateInvalid: () => make(400, "bad_oauth_state", "OAuth state parameter is invalid"),
  oauthStateNotFound: () => make(400, "bad_oauth_state", "OAuth state not found or expired"),
  oauthStateExpired: () => make(400, "bad_oauth_state", "OAuth state has expired"),
  flowStateAlreadyUsed: () => make(400, "flow_state_already_used", "State has already been used"),
  linkingTargetNotFound: () => make(422, "user_not_found", "Linking target user not found"),
  oauthCodeMissing: () => make(400, "bad_oauth_callback", "OAuth callback with missing authorization code missing"),
  oauthClientStateNotFound: () => make(422, "oauth_client_state_not_found", "OAuth state not found"),
  oauthClientStateExpired: () => make(422, "oauth_client_state_expired", "OAuth state expired"),
  oauthProviderMismatch: () => make(400, "oauth_invalid_state", "OAuth provider mismatch"),
  oauthVerifierMissing: () => make(400, "oauth_invalid_state", "OAuth PKCE code verifier missing"),
  /** The provider's own `error` on the callback, passed on as an OAuth error. */
  providerRefused: (error: string, description: string) => make(400, error, description, { oauth: { error, description } }),
  codeExchangeFailed: (code: string) => make(500, "unexpected_failure", `Unable to exchange external code: ${code.slice(0, 4)}`),
  requestTokenFailed: () => make(500, "unexpected_failure", "Unable to get a request token from the provider"),
  accessTokenFailed: () => make(500, "unexpected_failure", "Unable to retrieve access token"),
  providerProfileFailed: () => make(500, "unexpected_failure", "Error getting user profile from external provider"),
  providerEmailMissing: () => make(500, "unexpected_failure", "Error getting user email from external provider"),
  providerEmailNeedsVerification: (provider: string, sent: boolean) =>
    make(
      422,
      "provider_email_needs_verification",
      sent
        ? `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`
        : `Unverified email with ${provider}. Verify the email with ${provider} in order to sign in`,
    ),
  multipleAccounts: () =>
    make(500, "unexpected_failure", "Multiple accounts with the same email address in the same linking domain detected: default"),
  externalUserBanned: () => make(403, "user_banned", "User is banned"),
  identityAlreadyLinked: (toAnother: boolean) =>
    make(422, "identity_already_exists", toAnother ? "Identity is already linked to another user" : "Identity is already linked"),
  linkedEmailExists: () => make(400, "email_exists", "A user with this email address has already been registered"),
  linkedEmailNotConfirmed: (provider: string) =>
    make(422, "email_not_confirmed", `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`),
  manualLinkingDisabled: () => make(404, "manual_linking_disabled", "Manual linking is disabled"),
  identityIdNotUuid: () => make(404, "validation_failed", "identity_id must be an UUID"),
  unexpectedAudience: () => make(403, "unexpected_audience", "Token audience doesn't match request audience"),
  singleIdentityNotDeletable: () => make(422, "single_identity_not_deletable", "User must have at least 1 identity after unlinking"),
  identityNotFound: () => make(422, "identity_not_found", "Identity doesn't exist"),
  // grant_type=id_token (GoTrue's internal/api/token_oidc.go): OAuth-shaped errors, 400.
  idTokenInvalid: (description: string, error = "invalid request") =>
    make(400, "validation_failed", description, { oauth: { error, description } }),
  idTokenIssuerUndetected: (provider: string) =>
    make(400, "validation_failed", `Unable to detect issuer in ID token for ${provider} provider`),
  idTokenNotProviderIssuer: (provider: string) =>
    make(400, "validation_failed", `Detected ID token issuer is not an ${provider} ID token issuer`),
  idTokenIssuerMismatch: () => make(400, "validation_failed", "Provided issuer does not match ID token issuer"),
  idTokenIssuerNotAllowed: (provider: string) => make(400, "validation_failed", `Custom OIDC provider "${provider}" not allowed`),
  idTokenProviderDisabled: (issuer: string) => make(400, "provider_disabled", `Provider (issuer "${issuer}") is not enabled`),
  emailConflictIdentityNotDeletable: () =>
    make(422, "email_conflict_identity_not_deletable", "Unable to unlink identity due to email conflict"),

  // Multi-factor authentication (supabase/auth internal/api/mfa.go, admin.go, user.go, middleware.go).
  anonymousNotAllowed: () => make(403, "no_authorization", "Anonymous user not allowed to perform these actions"),
  factorIdNotUuid: () => make(404, "validation_failed", "factor_id must be an UUID"),
  factorNotFound: () => make(404, "mfa_factor_not_found", "Factor not found"),
  factorTypeInvalid: () => make(400, "validation_failed", "factor_type needs to be totp, phone, or webauthn"),
  mfaEnrollDisabled: (type: "TOTP" | "Phone" | "WebAuthn") =>
    make(422, `mfa_${type.toLowerCase()}_enroll_not_enabled`, `MFA enroll is disabled for ${type}`),
  mfaVerifyDisabled: (type: "TOTP" | "Phone" | "WebAuthn") =>
    make(422, `mfa_${type.toLowerCase()}_verify_not_enabled`, `MFA verification is disabled for ${type}`),
  factorNameConflict: (name: string) =>
    make(422, "mfa_factor_name_conflict", `A factor with the friendly name ${JSON.stringify(name)} for this user already exists`),
  tooManyFactors: () => make(422, "too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue"),
  enrollNeedsAal2: () => make(403, "insufficient_aal", "AAL2 required to enroll a new factor"),
  unenrollNeedsAal2: () => make(422, "insufficient_aal", "AAL2 required to unenroll verified factor"),
  userUpdateNeedsAal2: () => make(401, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled."),
  factorPhoneRequired: () => make(400, "validation_failed", "Phone number required to enroll Phone factor"),
  verifiedPhoneFactorExists: () =>
    make(422, "mfa_verified_factor_exists", "A verified phone factor already exists, unenroll the existing factor to continue"),
  phoneFactorExists: () => make(422, "validation_failed", "The user has another factor with this phone number"),
  /** TOTP needs an account name for its key URI (GoTrue answers 500 "Error generating QR Code" without an email). */
  totpNeedsAccountName: () => make(422, "validation_failed", "Enrolling a TOTP factor requires an email address or a phone number"),
  challengeNotFound: () => make(422, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found"),
  challengeIpMismatch: () => make(422, "mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch."),
  challengeExpired: (id: string) =>
    make(422, "mfa_challenge_expired", `MFA challenge ${id} has expired, verify against another challenge or create a new challenge.`),
  challengeIdInvalid: () => make(400, "validation_failed", "challenge_id must be an UUID"),
  codeRequired: () => make(400, "validation_failed", "Code needs to be non-empty"),
  totpCodeInvalid: () => make(422, "mfa_verification_failed", "Invalid TOTP code entered"),
  phoneCodeInvalid: () => make(422, "mfa_verification_failed", "Invalid MFA Phone code entered"),
};
