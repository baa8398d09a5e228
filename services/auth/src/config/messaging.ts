/**
 * Email, SMS and captcha settings. Mail goes out over SMTP (src/mail), SMS through the chosen
 * provider (src/sms), captcha tokens are checked with the chosen provider (src/domain/captcha.ts).
 * Nothing here is required: a service without SMTP or an SMS provider logs the messages it cannot
 * send; captcha checking, once enabled, needs its secret.
 */
import { boolean, ConfigError, custom, type Env, integer, oneOf, readConfig, string } from "@platform/core";
import { parseTemplate, TemplateError } from "../mail/go-template.js";
import { duration, names, optionalEmail, optionalUrl, parseInstant, parseTestOtps, parseUrl } from "./values.js";

const MESSAGES = ["INVITE", "CONFIRMATION", "RECOVERY", "MAGIC_LINK", "EMAIL_CHANGE"] as const;
const NOTIFICATIONS = [
  "PASSWORD_CHANGED",
  "EMAIL_CHANGED",
  "PHONE_CHANGED",
  "IDENTITY_LINKED",
  "IDENTITY_UNLINKED",
  "MFA_FACTOR_ENROLLED",
  "MFA_FACTOR_UNENROLLED",
] as const;

const DEFAULT_SUBJECTS: Record<string, string> = {
  INVITE: "You have been invited",
  CONFIRMATION: "Confirm Your Signup",
  RECOVERY: "Reset Your Password",
  MAGIC_LINK: "Your Magic Link",
  EMAIL_CHANGE: "Confirm Email Change",
  PASSWORD_CHANGED_NOTIFICATION: "Your password has been changed",
  EMAIL_CHANGED_NOTIFICATION: "Your email address has been changed",
  PHONE_CHANGED_NOTIFICATION: "Your phone number has been changed",
  IDENTITY_LINKED_NOTIFICATION: "A new identity has been linked",
  IDENTITY_UNLINKED_NOTIFICATION: "An identity has been unlinked",
  MFA_FACTOR_ENROLLED_NOTIFICATION: "A new MFA factor has been enrolled",
  MFA_FACTOR_UNENROLLED_NOTIFICATION: "An MFA factor has been unenrolled",
};

export function readSmtp(env: Env) {
  return readConfig(env, {
    host: string(names("SMTP_HOST")),
    port: integer(names("SMTP_PORT"), 587, { min: 1, max: 65535 }),
    adminEmail: custom(names("SMTP_ADMIN_EMAIL"), optionalEmail),
    user: string(names("SMTP_USER")),
    pass: string(names("SMTP_PASS")),
    maxFrequencyMs: custom(names("SMTP_MAX_FREQUENCY"), duration(900_000)),
    senderName: string(names("SMTP_SENDER_NAME")),
  });
}

export function readMailer(env: Env) {
  const base = readConfig(env, {
    autoconfirm: boolean(names("MAILER_AUTOCONFIRM"), false),
    otpExpSeconds: integer(names("MAILER_OTP_EXP"), 86_400, { min: 1 }),
    otpLength: integer(names("MAILER_OTP_LENGTH"), 6, { min: 6, max: 10 }),
    secureEmailChangeEnabled: boolean(names("MAILER_SECURE_EMAIL_CHANGE_ENABLED"), true),
  });
  const urlPaths = readConfig(env, {
    invite: string(names("MAILER_URLPATHS_INVITE"), "/verify"),
    confirmation: string(names("MAILER_URLPATHS_CONFIRMATION"), "/verify"),
    recovery: string(names("MAILER_URLPATHS_RECOVERY"), "/verify"),
    emailChange: string(names("MAILER_URLPATHS_EMAIL_CHANGE"), "/verify"),
  });
  const subjects: Record<string, string> = {};
  const templates: Record<string, string | undefined> = {};
  const spec: Record<string, ReturnType<typeof string>> = {};
  const templateSpec: Record<string, ReturnType<typeof custom<string | undefined>>> = {};
  for (const [key, fallback] of Object.entries(DEFAULT_SUBJECTS)) spec[key] = string(names(`MAILER_SUBJECTS_${key}`), fallback);
  for (const key of [...MESSAGES, ...NOTIFICATIONS.map((n) => `${n}_NOTIFICATION`)]) {
    templateSpec[key] = custom(names(`MAILER_TEMPLATES_${key}`), optionalUrl);
  }
  Object.assign(subjects, readConfig(env, spec));
  Object.assign(templates, readConfig(env, templateSpec));
  const notifications: Record<string, boolean> = {};
  const notificationSpec = Object.fromEntries(NOTIFICATIONS.map((n) => [n, boolean(names(`MAILER_NOTIFICATIONS_${n}_ENABLED`), false)]));
  Object.assign(notifications, readConfig(env, notificationSpec));
  return { ...base, urlPaths, subjects, templates, notifications };
}

export const SMS_PROVIDERS = ["twilio", "twilio_verify", "messagebird", "textlocal", "vonage"] as const;

/** The credentials each SMS provider needs (SMS_<PROVIDER>_<CREDENTIAL>). */
const SMS_CREDENTIALS: Record<(typeof SMS_PROVIDERS)[number], string[]> = {
  twilio: ["ACCOUNT_SID", "AUTH_TOKEN", "MESSAGE_SERVICE_SID"],
  twilio_verify: ["ACCOUNT_SID", "AUTH_TOKEN", "MESSAGE_SERVICE_SID"],
  messagebird: ["ACCESS_KEY", "ORIGINATOR"],
  textlocal: ["API_KEY", "SENDER"],
  vonage: ["API_KEY", "API_SECRET", "FROM"],
};

/**
 * Where each provider's API is (SMS_<PROVIDER>_BASE_URL), so tests and air-gapped deployments can
 * point elsewhere. The defaults are the hosts GoTrue calls (internal/api/sms_provider/*.go); the
 * paths it adds are fixed (see src/sms).
 */
const SMS_BASE_URLS = {
  twilio: "https://api.twilio.com",
  twilio_verify: "https://verify.twilio.com",
  messagebird: "https://rest.messagebird.com",
  textlocal: "https://api.textlocal.in",
  vonage: "https://rest.nexmo.com",
} as const;

/** GoTrue's default SMS text; an empty SMS_TEMPLATE means it too. */
export const DEFAULT_SMS_TEMPLATE = "Your code is {{ .Code }}";

const baseUrl = (fallback: string) => (raw: string | undefined) => parseUrl(raw ?? fallback);

/**
 * GoTrue parses SMS_TEMPLATE at start-up when a provider is chosen and refuses to start on a
 * template it cannot parse (internal/conf/configuration.go); the service does the same with the
 * template subset it knows (src/mail/go-template.ts).
 */
function checkSmsTemplate(source: string): void {
  try {
    parseTemplate(source);
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw new ConfigError([`AUTH_SMS_TEMPLATE cannot be parsed: ${error.message}`]);
  }
}

/** GoTrue's GOTRUE_INTERNAL_HTTP_TIMEOUT: a Go duration, 0 meaning the 10s default. */
function httpTimeout(raw: string | undefined): number {
  return duration(10_000)(raw) || 10_000;
}

/**
 * As in GoTrue, a provider with missing credentials does not stop start-up: the service warns
 * then, and refuses each SMS (`missingCredentials` lists the empty settings).
 */
export function readSms(env: Env) {
  const sms = readConfig(env, {
    autoconfirm: boolean(names("SMS_AUTOCONFIRM"), false),
    maxFrequencyMs: custom(names("SMS_MAX_FREQUENCY"), duration(60_000)),
    otpExpSeconds: integer(names("SMS_OTP_EXP"), 60, { min: 1 }),
    otpLength: integer(names("SMS_OTP_LENGTH"), 6, { min: 6, max: 10 }),
    provider: custom(names("SMS_PROVIDER"), (raw) => {
      if (raw === undefined) return undefined;
      const found = SMS_PROVIDERS.find((p) => p === raw.toLowerCase());
      if (!found) throw new Error(`must be one of ${SMS_PROVIDERS.join(", ")}, got "${raw}"`);
      return found;
    }),
    template: string(names("SMS_TEMPLATE"), DEFAULT_SMS_TEMPLATE),
    testOtp: custom(names("SMS_TEST_OTP"), parseTestOtps),
    // Twilio's WhatsApp content template (GoTrue's SMS_TWILIO_CONTENT_SID): when set, WhatsApp
    // messages carry the code as its variable instead of the rendered SMS_TEMPLATE.
    twilioContentSid: string(names("SMS_TWILIO_CONTENT_SID")),
    // GoTrue bounds every call to an SMS provider with GOTRUE_INTERNAL_HTTP_TIMEOUT (default 10s,
    // internal/api/sms_provider/sms_provider.go); a send runs inside the request's transaction.
    timeoutMs: custom(names("INTERNAL_HTTP_TIMEOUT"), httpTimeout),
  });
  // GoTrue reads SMS_TEST_OTP_VALID_UNTIL as an RFC 3339 time; after it the test codes stop working.
  const testOtpValidUntil = readConfig(env, { at: custom(names("SMS_TEST_OTP_VALID_UNTIL"), parseInstant) }).at;
  const baseUrls = readConfig(env, {
    twilio: custom(names("SMS_TWILIO_BASE_URL"), baseUrl(SMS_BASE_URLS.twilio)),
    twilio_verify: custom(names("SMS_TWILIO_VERIFY_BASE_URL"), baseUrl(SMS_BASE_URLS.twilio_verify)),
    messagebird: custom(names("SMS_MESSAGEBIRD_BASE_URL"), baseUrl(SMS_BASE_URLS.messagebird)),
    textlocal: custom(names("SMS_TEXTLOCAL_BASE_URL"), baseUrl(SMS_BASE_URLS.textlocal)),
    vonage: custom(names("SMS_VONAGE_BASE_URL"), baseUrl(SMS_BASE_URLS.vonage)),
  });
  if (sms.provider) checkSmsTemplate(sms.template);
  const credentials: Record<string, string> = {};
  const missingCredentials: string[] = [];
  if (sms.provider) {
    for (const credential of SMS_CREDENTIALS[sms.provider]) {
      const name = `SMS_${sms.provider.toUpperCase()}_${credential}`;
      const value = names(name)
        .map((n) => env[n]?.trim())
        .find((v) => v);
      if (value) credentials[credential.toLowerCase()] = value;
      else missingCredentials.push(`AUTH_${name}`);
    }
  }
  return { ...sms, testOtpValidUntil, baseUrls, credentials, missingCredentials };
}

/** Where each captcha provider verifies a token (supabase/auth internal/security/captcha.go getCaptchaURL). */
const CAPTCHA_VERIFY_URLS = {
  hcaptcha: "https://hcaptcha.com/siteverify",
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
} as const;

export function readCaptcha(env: Env, problems: string[]) {
  const captcha = readConfig(env, {
    enabled: boolean(names("SECURITY_CAPTCHA_ENABLED"), false),
    provider: oneOf(names("SECURITY_CAPTCHA_PROVIDER"), ["hcaptcha", "turnstile"], "hcaptcha"),
    secret: string(names("SECURITY_CAPTCHA_SECRET")),
    // GoTrue: a timeout of 0 means its 10s default (internal/security/captcha.go NewCaptchaVerifier).
    timeoutMs: custom(names("SECURITY_CAPTCHA_TIMEOUT"), httpTimeout),
    // Ours, not GoTrue's: the provider's verify endpoint, for tests and self-hosted proxies.
    verifyUrl: custom(names("SECURITY_CAPTCHA_VERIFY_URL"), optionalUrl),
  });
  if (captcha.enabled && captcha.secret === undefined) {
    problems.push("AUTH_SECURITY_CAPTCHA_SECRET is required when AUTH_SECURITY_CAPTCHA_ENABLED is true");
  }
  return { ...captcha, verifyUrl: captcha.verifyUrl ?? CAPTCHA_VERIFY_URLS[captcha.provider] };
}
