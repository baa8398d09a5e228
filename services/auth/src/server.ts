/** Starts the auth service from its configuration; used by main.ts and by the all-services start script. */
import {
  connectRateLimitRedis,
  type Database,
  type Logger,
  openDatabase,
  startTelemetry,
  type Telemetry,
  type TelemetrySettings,
} from "@platform/core";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { AuthConfig } from "./config.js";
import { runMigrations } from "./db/migrations.js";
import { DEFAULT_SCHEMA } from "./db/tables.js";
import { type Messenger, undeliveredMessenger } from "./domain/messenger.js";
import { limitingSends } from "./domain/send-limits.js";
import { AuthService } from "./domain/service.js";
import { VERSION } from "./domain/settings.js";
import { smsConfigurationWarning } from "./domain/sms-readiness.js";
import { buildHttpApp } from "./http/app.js";
import { createRequestLimiter, createSendBucket, requestBucket } from "./http/rate-limit.js";
import { createRouteLimits } from "./http/route-limits.js";
import { type MailDelivery, startMailDelivery } from "./mail/delivery.js";

export interface AuthOptions {
  /**
   * Where one-time codes go (tests record them); by default email goes over SMTP when SMTP_HOST is
   * set and SMS through SMS_PROVIDER, else they are logged as undelivered.
   */
  messenger?: Messenger;
  /** An already open database (tests); otherwise the configured one is opened and closed with the service. */
  db?: Database;
  /**
   * Catch emails in-process and list them at /_mail when no SMTP_HOST is configured (the local
   * `npm start` asks for it). Honoured only when the API listens on a loopback address.
   */
  mailCatcher?: boolean;
}

export interface AuthInstance {
  app: FastifyInstance;
  service: AuthService;
  db: Database;
  telemetry: Telemetry;
  close(): Promise<void>;
}

export interface RunningAuth extends AuthInstance {
  url: string;
}

/** GoTrue's DB_MAX_POOL_SIZE: 0 means no limit of our own. */
const poolSize = (configured: number) => (configured === 0 ? Number.POSITIVE_INFINITY : configured);

export async function openAuthDatabase(config: AuthConfig["database"], logger: Logger): Promise<Database> {
  if (!config.url) logger.info({ dataDir: config.dataDir }, "no DATABASE_URL: using embedded PGlite");
  return openDatabase({ url: config.url, dataDir: config.url ? undefined : config.dataDir, maxConnections: poolSize(config.maxPoolSize) });
}

/** Settings that start the service but leave part of it refusing requests, said once at start-up. */
function warnAboutSettings(config: AuthConfig, logger: Logger): void {
  for (const [name, provider] of Object.entries(config.external.providers)) {
    if (provider.missing) {
      logger.warn(
        { provider: name, missing: provider.missing },
        `${name} is enabled without ${provider.missing.join(", ")}; it is refused when used`,
      );
    }
    if (provider.testIssuer) {
      logger.warn(
        { provider: name, issuer: provider.testIssuer },
        `EXTERNAL_${name.toUpperCase()}_TEST_ISSUER is set: ${name} trusts that issuer instead of its own (for tests only)`,
      );
    }
  }
  if (config.mfa.webAuthnEnroll || config.mfa.webAuthnVerify) {
    logger.warn(
      { settings: ["MFA_WEB_AUTHN_ENROLL_ENABLED", "MFA_WEB_AUTHN_VERIFY_ENABLED"] },
      "WebAuthn MFA factors are not supported: they are refused as disabled",
    );
  }
  const sms = smsConfigurationWarning(config.sms);
  if (sms) logger.warn(sms.fields, sms.message);
  // Twilio Verify sends and checks codes itself (GoTrue's internal/api/sms_provider/twilio_verify.go);
  // /verify does not ask it yet, so its SMS are logged as not delivered.
  if (config.sms.provider === "twilio_verify")
    logger.warn({ provider: "twilio_verify" }, "SMS provider twilio_verify is not supported yet; SMS are not sent");
}

/** GoTrue's observability settings; resource attribute `auth.version` carries the build version. */
export function telemetrySettings(config: AuthConfig): TelemetrySettings {
  const t = config.telemetry;
  return {
    serviceName: t.serviceName,
    serviceVersion: VERSION,
    resourceAttributes: { "auth.version": VERSION, ...t.resourceAttributes },
    tracing: { enabled: t.tracingEnabled, exportDelayMs: t.spanExportDelayMs },
    metrics: {
      enabled: t.metricsEnabled,
      exporter: t.metricsExporter,
      prometheus: { host: t.prometheusHost, port: t.prometheusPort },
      exportIntervalMs: t.metricExportIntervalMs,
    },
    otlp: { protocol: t.otlpProtocol, endpoint: t.otlpEndpoint },
    debug: t.debug,
  };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

function wantsMailCatcher(config: AuthConfig, logger: Logger, options: AuthOptions): boolean {
  if (!options.mailCatcher || config.smtp.host) return false;
  if (LOOPBACK.has(config.api.host)) return true;
  logger.warn({ host: config.api.host }, "the mail catcher runs only when the API listens on a loopback address; mail is not delivered");
  return false;
}

export async function createAuth(config: AuthConfig, logger: Logger, options: AuthOptions = {}): Promise<AuthInstance> {
  const ownsDb = options.db === undefined;
  const db = options.db ?? (await openAuthDatabase(config.database, logger));
  let redis: Redis | undefined;
  let telemetry: Telemetry | undefined;
  let mail: MailDelivery | undefined;
  try {
    const applied = await runMigrations(db, config.database.schema);
    if (applied.length > 0) logger.info({ applied }, "auth migrations applied");
    telemetry = await startTelemetry(telemetrySettings(config), logger);
    if (telemetry.metricsUrl) logger.info({ url: telemetry.metricsUrl }, "serving Prometheus metrics");
    if (!options.messenger) mail = await startMailDelivery(config, logger, { mailCatcher: wantsMailCatcher(config, logger, options) });
    if (config.rateLimit.redisUrl) {
      redis = await connectRateLimitRedis(config.rateLimit.redisUrl, logger);
    }
    const prefix = config.database.schema === DEFAULT_SCHEMA ? "auth" : `auth:${config.database.schema}`;
    // RATE_LIMIT_EMAIL_SENT / RATE_LIMIT_SMS_SENT apply to whichever messenger sends (one injected by tests too).
    const messenger = limitingSends(
      options.messenger ?? mail?.messenger ?? undeliveredMessenger(logger),
      {
        email: createSendBucket(config.rateLimit.emailSent, { key: `${prefix}:email_sent`, redis, logger }),
        sms: createSendBucket(config.rateLimit.smsSent, { key: `${prefix}:sms_sent`, redis, logger }),
      },
      config,
    );
    const service = await AuthService.create({ db, config, logger, meter: telemetry.meter, messenger, smsCodes: mail?.smsCodes });
    const tokenLimiter = createRequestLimiter(requestBucket(config.rateLimit.tokenRefresh), {
      keyPrefix: `${prefix}:token`,
      redis,
      logger,
    });
    const routeLimits = createRouteLimits(config.rateLimit, { keyPrefix: prefix, redis, logger }, config.mfa.rateLimitChallengeAndVerify);
    const app = buildHttpApp(service, {
      logger,
      tokenLimiter,
      routeLimits,
      requestIdHeader: config.api.requestIdHeader,
      telemetry,
      mailCatcher: mail?.mailbox,
    });
    warnAboutSettings(config, logger);
    const started = telemetry;
    const delivery = mail;
    return {
      app,
      service,
      db,
      telemetry: started,
      async close() {
        await app.close();
        await delivery?.close();
        redis?.disconnect();
        await started.shutdown();
        if (ownsDb) await db.close();
      },
    };
  } catch (error) {
    await mail?.close();
    redis?.disconnect();
    await telemetry?.shutdown();
    if (ownsDb) await db.close();
    throw error;
  }
}

export async function startAuth(config: AuthConfig, logger: Logger, options: AuthOptions = {}): Promise<RunningAuth> {
  const instance = await createAuth(config, logger, options);
  try {
    const url = await instance.app.listen({ host: config.api.host, port: config.api.port });
    return { url, ...instance };
  } catch (error) {
    await instance.close();
    throw error;
  }
}
