/**
 * The auth service's configuration, read once at start-up from `.env` and the environment
 * (the environment wins). Settings are `AUTH_<NAME>`, with GoTrue's `GOTRUE_<NAME>` accepted as
 * an alias; `PORT`, `DATABASE_URL`, `LOG_LEVEL` and the `OTEL_*` variables have no prefix.
 * Every problem of every group ends up in one ConfigError.
 */

import { availableParallelism } from "node:os";
import { boolean, ConfigError, collectProblems, custom, type Env, integer, LOG_FORMATS, oneOf, readConfig, string } from "@platform/core";
import { parseJwtKeys, type SigningAlgorithm } from "./config/jwt-keys.js";
import { readMailDelivery } from "./config/mail.js";
import { readCaptcha, readMailer, readSms, readSmtp } from "./config/messaging.js";
import { readMfa } from "./config/mfa.js";
import { readProviders } from "./config/providers.js";
import {
  duration,
  list,
  names,
  optionalUrl,
  parseAttributes,
  parseNamespace,
  parseRequiredCharacters,
  type Rate,
  rate,
  requestRate,
  requiredUrl,
} from "./config/values.js";

export { type ConfiguredKey, SIGNING_ALGORITHMS, type SigningAlgorithm } from "./config/jwt-keys.js";
export { PROVIDERS, type ProviderName } from "./config/providers.js";
export type { Rate } from "./config/values.js";

/** GoTrue's levels (panic..debug) plus pino's own; panic maps to fatal. */
const LOG_LEVELS = ["panic", "fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function postgresUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(raw)) throw new Error("must be a postgres:// or postgresql:// URL");
  return raw;
}

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^rediss?:\/\//i.test(raw)) throw new Error("must be a redis:// or rediss:// URL");
  return raw;
}

function jwtSecret(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length < 32) throw new Error("must be at least 32 characters long");
  return raw;
}

const DB_NAMES = { url: [...names("DB_DATABASE_URL"), "DATABASE_URL", "DB_DATABASE_URL"] };

function readDatabase(env: Env) {
  return readConfig(env, {
    driver: custom(names("DB_DRIVER"), (raw) => {
      if (raw === undefined) throw new Error("is required (the only supported value is postgres)");
      if (raw !== "postgres") throw new Error(`must be postgres, got "${raw}"`);
      return "postgres" as const;
    }),
    url: custom(DB_NAMES.url, postgresUrl),
    dataDir: string(names("DATA_DIR"), "./data/auth"),
    maxPoolSize: integer(names("DB_MAX_POOL_SIZE"), 0, { min: 0 }),
    /** DB_NAMESPACE: the schema of the tables (GoTrue's meaning). */
    schema: custom(names("DB_NAMESPACE", "DB_NAMESPACE"), parseNamespace),
  });
}

function readTopLevel(env: Env) {
  return readConfig(env, {
    siteUrl: custom(names("SITE_URL"), requiredUrl),
    uriAllowList: custom(names("URI_ALLOW_LIST"), (raw) => list(raw)),
    operatorToken: string(names("OPERATOR_TOKEN")),
    disableSignup: boolean(names("DISABLE_SIGNUP"), false),
    emailEnabled: boolean(names("EXTERNAL_EMAIL_ENABLED"), true),
    magicLinkEnabled: boolean(names("EXTERNAL_EMAIL_MAGIC_LINK_ENABLED"), true),
    // GoTrue raises anything below its default of five minutes to the default.
    flowStateExpiryMs: custom(names("EXTERNAL_FLOW_STATE_EXPIRY_DURATION"), (raw) => Math.max(duration(300_000)(raw), 300_000)),
    phoneEnabled: boolean(names("EXTERNAL_PHONE_ENABLED"), false),
    anonymousUsersEnabled: boolean(names("EXTERNAL_ANONYMOUS_USERS_ENABLED"), false),
    /** The issuers grant_type=id_token accepts with a request's own `issuer` and `client_id`. */
    allowedIdTokenIssuers: custom(names("EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS"), (raw) =>
      list(raw, ["https://appleid.apple.com", "https://accounts.google.com"]),
    ),
    /** An iOS app's bundle id, accepted as the audience of Apple ID tokens. */
    iosBundleId: string(names("EXTERNAL_IOS_BUNDLE_ID")),
    /** Where every external sign-in ends, whatever its redirect_to (GoTrue's EXTERNAL_REDIRECTURL). */
    externalRedirectUrl: custom(names("EXTERNAL_REDIRECTURL"), optionalUrl),
    /** Sign in with a provider whose email is not verified (a confirmation is still sent). */
    allowUnverifiedEmailSignIns: boolean(names("MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS"), false),
    auditLogDisabled: boolean(names("AUDIT_LOG_DISABLE_POSTGRES"), false),
  });
}

/** GoTrue's default for RATE_LIMIT_EMAIL_SENT and RATE_LIMIT_SMS_SENT (internal/conf/configuration.go): 30, i.e. 30 per hour. */
const DEFAULT_SEND_RATE: Rate = { shape: "interval", events: 30, perMs: 3_600_000 };

function readLimits(env: Env) {
  return readConfig(env, {
    header: string(names("RATE_LIMIT_HEADER")),
    /** Emails sent, all users together (GoTrue's default: 30 per hour). */
    emailSent: custom(names("RATE_LIMIT_EMAIL_SENT"), rate(DEFAULT_SEND_RATE)),
    /** SMS sent, all users together (GoTrue's default: 30 per hour). */
    smsSent: custom(names("RATE_LIMIT_SMS_SENT"), rate(DEFAULT_SEND_RATE)),
    /** Requests to /token earned back per five minutes per key (a burst of 30). */
    tokenRefresh: custom(names("RATE_LIMIT_TOKEN_REFRESH"), requestRate(150)),
    /** Requests to /verify (GET and POST together) earned back per five minutes per key (a burst of 30). */
    verify: custom(names("RATE_LIMIT_VERIFY"), requestRate(30)),
    /** The same for each of /otp, /magiclink, /recover, /resend, /signup (not anonymous) and PUT /user. */
    otp: custom(names("RATE_LIMIT_OTP"), requestRate(30)),
    redisUrl: custom(names("REDIS_URL"), redisUrl),
  });
}

function readSecurity(env: Env) {
  return readConfig(env, {
    passwordMinLength: integer(names("PASSWORD_MIN_LENGTH"), 6, { min: 6, max: 72 }),
    passwordRequiredCharacters: custom(names("PASSWORD_REQUIRED_CHARACTERS"), parseRequiredCharacters),
    passwordHashCost: integer(names("PASSWORD_HASH_COST"), 10, { min: 4, max: 31 }),
    /** bcrypt jobs at once; by default every core but one, so hashing never starves the event loop. */
    passwordHashConcurrency: integer(names("PASSWORD_HASH_CONCURRENCY"), Math.max(1, availableParallelism() - 1), { min: 1 }),
    refreshTokenRotationEnabled: boolean(names("SECURITY_REFRESH_TOKEN_ROTATION_ENABLED"), true),
    refreshTokenReuseIntervalMs: custom(names("SECURITY_REFRESH_TOKEN_REUSE_INTERVAL"), duration(10_000)),
    updatePasswordRequireReauthentication: boolean(names("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION"), false),
    updatePasswordRequireCurrentPassword: boolean(names("SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD"), false),
    pfForwardedForEnabled: boolean(names("SECURITY_PF_FORWARDED_FOR_ENABLED"), false),
    /**
     * Ours: inside the send window a second magic link, recovery mail or SMS code answers `{}` and
     * sends nothing, as for an unknown address, instead of GoTrue's 429 (which tells a known
     * address apart).
     */
    silentSendWindow: boolean(names("SECURITY_SILENT_SEND_WINDOW"), false),
    /** GET /user/identities/authorize and DELETE /user/identities/{id}. */
    manualLinkingEnabled: boolean(names("SECURITY_MANUAL_LINKING_ENABLED"), false),
  });
}

function readApi(env: Env) {
  return readConfig(env, {
    host: string(names("API_HOST"), "0.0.0.0"),
    port: integer([...names("API_PORT"), "PORT", "API_PORT"], 8081, { min: 0, max: 65535 }),
    endpoint: string(names("API_ENDPOINT")),
    externalUrl: custom(names("API_EXTERNAL_URL", "API_EXTERNAL_URL"), requiredUrl),
    requestIdHeader: custom(names("REQUEST_ID_HEADER"), (raw) => raw?.toLowerCase()),
  });
}

function readObservability(env: Env) {
  return readConfig(env, {
    logLevel: oneOf(names("LOG_LEVEL", "LOG_LEVEL"), LOG_LEVELS, "info"),
    logFile: string(names("LOG_FILE")),
    logFormat: oneOf(names("LOG_FORMAT", "LOG_FORMAT"), LOG_FORMATS, "auto"),
    tracingEnabled: boolean(names("TRACING_ENABLED"), false),
    tracingExporter: oneOf(names("TRACING_EXPORTER"), ["opentelemetry"], "opentelemetry"),
    metricsEnabled: boolean(names("METRICS_ENABLED"), false),
    metricsExporter: oneOf(names("METRICS_EXPORTER"), ["opentelemetry", "prometheus"], "opentelemetry"),
    prometheusHost: string("OTEL_EXPORTER_PROMETHEUS_HOST", "0.0.0.0"),
    prometheusPort: integer("OTEL_EXPORTER_PROMETHEUS_PORT", 9100, { min: 0, max: 65535 }),
    resourceAttributes: custom("OTEL_RESOURCE_ATTRIBUTES", parseAttributes),
    // OTLP over gRPC is not offered: the HTTP transports reach every collector.
    otlpProtocol: oneOf("OTEL_EXPORTER_OTLP_PROTOCOL", ["http/protobuf", "http/json"], "http/protobuf"),
    otlpEndpoint: custom("OTEL_EXPORTER_OTLP_ENDPOINT", (raw) => (raw === undefined ? "http://localhost:4318" : requiredUrl(raw))),
    /** How often metrics are pushed over OTLP, and how long spans are batched (the OTel SDK's names). */
    metricExportIntervalMs: integer("OTEL_METRIC_EXPORT_INTERVAL", 60_000, { min: 1 }),
    spanExportDelayMs: integer("OTEL_BSP_SCHEDULE_DELAY", 5_000, { min: 0 }),
    serviceName: string("OTEL_SERVICE_NAME", "gotrue"),
    // DEBUG is also the `debug` package's namespace list, so anything but a true value means off.
    debug: custom("DEBUG", (raw) => raw === "true" || raw === "1"),
  });
}

const JWT_ALGORITHMS = ["RS256", "ES256", "EdDSA", "HS256"] as const;

/**
 * `algorithm` is what tokens are signed with: the JWT_KEYS signing key's when JWT_KEYS is set;
 * otherwise JWT_ALGORITHM when given;
 * else HS256 with JWT_SECRET when the secret is set (GoTrue's behaviour, so services verifying
 * with the secret keep working); else RS256 with a key pair generated and stored in the database.
 */
function readJwt(env: Env, problems: string[]) {
  const jwt = readConfig(env, {
    secret: custom(names("JWT_SECRET"), jwtSecret),
    exp: integer(names("JWT_EXP"), 3600, { min: 1 }),
    aud: string(names("JWT_AUD"), "authenticated"),
    adminGroupName: string(names("JWT_ADMIN_GROUP_NAME"), "admin"),
    defaultGroupName: string(names("JWT_DEFAULT_GROUP_NAME"), "authenticated"),
    adminRoles: custom(names("JWT_ADMIN_ROLES"), (raw) => list(raw, ["service_role", "supabase_admin"])),
    keys: custom(names("JWT_KEYS"), parseJwtKeys),
    keyId: string(names("JWT_KEY_ID")),
    issuer: string(names("JWT_ISSUER")),
    /** Our own setting (see above). */
    explicitAlgorithm: custom(names("JWT_ALGORITHM"), (raw) => {
      if (raw === undefined) return undefined;
      const found = JWT_ALGORITHMS.find((alg) => alg === raw);
      if (!found) throw new Error(`must be one of ${JWT_ALGORITHMS.join(", ")}, got "${raw}"`);
      return found;
    }),
  });
  const { explicitAlgorithm, ...rest } = jwt;
  const signing = jwt.keys.find((key) => key.signingKey)?.alg;
  const algorithm: SigningAlgorithm = signing ?? explicitAlgorithm ?? (jwt.secret !== undefined ? "HS256" : "RS256");
  if (algorithm === "HS256" && jwt.keys.length === 0 && jwt.secret === undefined) {
    problems.push("AUTH_JWT_SECRET is required when AUTH_JWT_ALGORITHM is HS256");
  }
  return { ...rest, algorithm };
}

export function readAuthConfig(env: Env) {
  const problems: string[] = [];
  const collect = <T>(read: () => T): T | undefined => collectProblems(problems, read);
  const top = collect(() => readTopLevel(env));
  const limits = collect(() => readLimits(env));
  const security = collect(() => readSecurity(env));
  const api = collect(() => readApi(env));
  const database = collect(() => readDatabase(env));
  const observability = collect(() => readObservability(env));
  const jwt = collect(() => readJwt(env, problems));
  const providers = readProviders(collect, env);
  const smtp = collect(() => readSmtp(env));
  const mailer = collect(() => readMailer(env));
  const sms = collect(() => readSms(env));
  const captcha = collect(() => readCaptcha(env, problems));
  const mfa = collect(() => readMfa(env));
  // Mail delivery (src/mail): the settings GoTrue has beyond config/messaging.ts.
  const mailDelivery = smtp ? collect(() => readMailDelivery(env, smtp, problems)) : undefined;
  if (
    problems.length > 0 ||
    !top ||
    !limits ||
    !security ||
    !api ||
    !database ||
    !observability ||
    !jwt ||
    !smtp ||
    !mailer ||
    !sms ||
    !captcha ||
    !mfa ||
    !mailDelivery
  ) {
    throw new ConfigError(problems);
  }
  const { logLevel, logFile, logFormat, ...telemetry } = observability;
  return {
    siteUrl: top.siteUrl,
    uriAllowList: top.uriAllowList,
    operatorToken: top.operatorToken,
    disableSignup: top.disableSignup,
    auditLogDisabled: top.auditLogDisabled,
    external: {
      email: top.emailEnabled,
      magicLink: top.magicLinkEnabled,
      phone: top.phoneEnabled,
      anonymousUsers: top.anonymousUsersEnabled,
      flowStateExpiryMs: top.flowStateExpiryMs,
      allowedIdTokenIssuers: top.allowedIdTokenIssuers,
      iosBundleId: top.iosBundleId,
      redirectUrl: top.externalRedirectUrl,
      allowUnverifiedEmailSignIns: top.allowUnverifiedEmailSignIns,
      providers,
    },
    rateLimit: limits,
    security,
    api,
    database,
    log: { level: logLevel === "panic" ? "fatal" : logLevel, file: logFile, format: logFormat },
    telemetry,
    jwt: { ...jwt, issuer: jwt.issuer ?? api.externalUrl },
    smtp,
    mailer,
    sms,
    captcha,
    mfa,
    mailDelivery,
  };
}

export type AuthConfig = ReturnType<typeof readAuthConfig>;

/** Only the database settings, for `npm run migrate -w services/auth`. */
export function readAuthDatabaseConfig(env: Env) {
  return readDatabase(env);
}

export type AuthDatabaseConfig = ReturnType<typeof readAuthDatabaseConfig>;
