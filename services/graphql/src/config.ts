/** The GraphQL service's configuration, under Hasura's own variable names, read once at start-up. */
import { boolean, ConfigError, collectProblems, custom, type Env, integer, LOG_FORMATS, oneOf, readConfig, string } from "@platform/core";
import { type AuthConfig, AuthConfigError, createAuthConfig } from "./engine/auth/config.js";
import { DEFAULT_ROLE_LIMITS } from "./engine/limits/guard.js";
import { DEFAULT_STATEMENT_BOUNDS, LIMIT_SETTINGS } from "./engine/limits/statements.js";
import { parseCorsDomains } from "./http/cors.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * HASURA_GRAPHQL_TIME_LIMIT: seconds a GraphQL request's statements may run (0: no limit). Hasura
 * has no such setting (its time limit is the `time_limit` API limit); the name and the unit are
 * that limit's, and the default is the 60 s Hasura Cloud gives every project
 * (https://hasura.io/docs/2.0/security/api-limits/#time-limits), so apps made for Hasura keep
 * working. API limits can only lower it.
 */
function seconds(raw: string | undefined): number {
  if (raw === undefined) return 60;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value)) throw new Error(`must be a number of seconds, got "${raw}"`);
  return value;
}

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^rediss?:\/\//i.test(raw)) throw new Error("must be a redis:// or rediss:// URL");
  return raw;
}

function postgresUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//i.test(raw)) throw new Error(`must be a postgres:// or postgresql:// URL`);
  return raw;
}

/** Reads the settings, then builds the auth configuration; every problem of both lands in one ConfigError. */
export function readGraphqlConfig(env: Env) {
  const problems: string[] = [];
  const settings = collectProblems(problems, () => readSettings(env));
  let auth: AuthConfig | undefined;
  try {
    auth = createAuthConfig({
      adminSecret: env.HASURA_GRAPHQL_ADMIN_SECRET ?? env.HASURA_GRAPHQL_ACCESS_KEY,
      jwtSecret: env.HASURA_GRAPHQL_JWT_SECRET,
      jwtSecrets: env.HASURA_GRAPHQL_JWT_SECRETS,
      authHook: env.HASURA_GRAPHQL_AUTH_HOOK,
      authHookMode: env.HASURA_GRAPHQL_AUTH_HOOK_MODE,
      unauthorizedRole: env.HASURA_GRAPHQL_UNAUTHORIZED_ROLE,
    });
  } catch (error) {
    if (!(error instanceof AuthConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length > 0 || !settings || !auth) throw new ConfigError(problems);
  // The whole environment stays readable by actions (`{{VAR}}` handler templates, `value_from_env` headers), as in Hasura.
  return { ...settings, auth, environment: env };
}

function readSettings(env: Env) {
  return readConfig(env, {
    databaseUrl: custom(["HASURA_GRAPHQL_DATABASE_URL", "HASURA_GRAPHQL_METADATA_DATABASE_URL"], postgresUrl),
    // Ours: the URL the engine's LISTEN connection (live queries' change signal) uses, when the
    // database URL goes through a transaction-mode pooler, which does not carry LISTEN.
    listenDatabaseUrl: custom("HASURA_GRAPHQL_LISTEN_DATABASE_URL", postgresUrl),
    dataDir: string("HASURA_GRAPHQL_DATA_DIR", "./data/graphql"),
    port: integer(["HASURA_GRAPHQL_SERVER_PORT"], 8080, { min: 0, max: 65535 }),
    host: string("HASURA_GRAPHQL_SERVER_HOST", "0.0.0.0"),
    corsDomains: custom("HASURA_GRAPHQL_CORS_DOMAIN", parseCorsDomains),
    disableCors: boolean("HASURA_GRAPHQL_DISABLE_CORS", false),
    enableConsole: boolean("HASURA_GRAPHQL_ENABLE_CONSOLE", true),
    migrationsDir: string("HASURA_GRAPHQL_MIGRATIONS_DIR"),
    metadataDir: string("HASURA_GRAPHQL_METADATA_DIR"),
    booleanNullCollapse: boolean("HASURA_GRAPHQL_V1_BOOLEAN_NULL_COLLAPSE", false),
    stringifyNumeric: boolean("HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES", false),
    poolSize: integer("HASURA_GRAPHQL_PG_CONNECTIONS", 50, { min: 1 }),
    // Hasura's default: a connection is replaced after 600 s, which also frees its prepared statements.
    connectionLifetime: integer("HASURA_GRAPHQL_PG_CONN_LIFETIME", 600, { min: 0 }),
    timeLimit: custom("HASURA_GRAPHQL_TIME_LIMIT", seconds),
    // How large one statement may be, and one operation, for every role (engine/limits/statements.ts);
    // an operation with more root fields than one statement holds is split over several (at most
    // 1,000 per statement: PostgreSQL's limit is 1,664 columns).
    statementRootFields: integer(LIMIT_SETTINGS.rootFieldsPerStatement, DEFAULT_STATEMENT_BOUNDS.rootFieldsPerStatement, {
      min: 1,
      max: 1000,
    }),
    statementSubqueries: integer(LIMIT_SETTINGS.subqueriesPerStatement, DEFAULT_STATEMENT_BOUNDS.subqueriesPerStatement, { min: 1 }),
    operationRootFields: integer(LIMIT_SETTINGS.rootFieldsPerOperation, DEFAULT_STATEMENT_BOUNDS.rootFieldsPerOperation, { min: 1 }),
    operationSubqueries: integer(LIMIT_SETTINGS.subqueriesPerOperation, DEFAULT_STATEMENT_BOUNDS.subqueriesPerOperation, { min: 1 }),
    // Bytes of JSON one HTTP request's answers may take (a batch's together), for every role.
    responseSizeLimit: integer(LIMIT_SETTINGS.responseBytes, DEFAULT_STATEMENT_BOUNDS.responseBytes, { min: 1 }),
    // Ours where metadata's api_limits set none, for every role but admin (engine/limits/guard.ts); 0 for none.
    defaultDepthLimit: integer(LIMIT_SETTINGS.depth, DEFAULT_ROLE_LIMITS.depth ?? 0, { min: 0 }),
    defaultNodeLimit: integer(LIMIT_SETTINGS.nodes, DEFAULT_ROLE_LIMITS.nodes ?? 0, { min: 0 }),
    defaultBatchLimit: integer(LIMIT_SETTINGS.batch, DEFAULT_ROLE_LIMITS.batch ?? 0, { min: 0 }),
    costLimit: integer(LIMIT_SETTINGS.cost, DEFAULT_ROLE_LIMITS.cost ?? 0, { min: 0 }),
    patternLengthLimit: integer(LIMIT_SETTINGS.patternLength, DEFAULT_ROLE_LIMITS.patternLength ?? 0, { min: 0 }),
    // Who sees `extensions.internal` (the SQL error, the statement) in GraphQL errors, as Hasura decides it.
    devMode: boolean("HASURA_GRAPHQL_DEV_MODE", false),
    adminInternalErrors: boolean("HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS", true),
    // Hasura EE's rate limit store; its caching Redis URL serves too when that is the only one set.
    rateLimitRedisUrl: custom(["HASURA_GRAPHQL_RATE_LIMIT_REDIS_URL", "HASURA_GRAPHQL_REDIS_URL"], redisUrl),
    metadataPollMs: integer("HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS", 1000, { min: 50 }),
    // Live queries (Hasura's names and defaults): how often cohorts are polled (ms) and how many one statement carries.
    liveQueryRefetchMs: integer("HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL", 1000, { min: 1 }),
    liveQueryBatchSize: integer("HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE", 100, { min: 1 }),
    streamRefetchMs: integer("HASURA_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_REFETCH_INTERVAL", 1000, { min: 1 }),
    streamBatchSize: integer("HASURA_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_BATCH_SIZE", 100, { min: 1 }),
    // Ours: live queries poll when the tables they read changed (a trigger's NOTIFY), not every interval.
    liveQueryChangeSignal: boolean("HASURA_GRAPHQL_LIVE_QUERIES_CHANGE_SIGNAL", true),
    // Ours: how long (ms) a poller woken by the signal waits after its previous poll ended (0: at once).
    liveQuerySignalGapMs: integer("HASURA_GRAPHQL_LIVE_QUERIES_CHANGE_SIGNAL_MIN_INTERVAL", 100, { min: 0 }),
    // WebSockets (Hasura's names, in seconds): keep-alive interval and how long a client has to send connection_init.
    websocketKeepAlive: integer("HASURA_GRAPHQL_WEBSOCKET_KEEPALIVE", 5, { min: 1 }),
    websocketInitTimeout: integer("HASURA_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT", 3, { min: 1 }),
    // Ours: operations one socket may run at once, and bytes it may have queued unsent before it is closed.
    websocketMaxOperations: integer("HASURA_GRAPHQL_WEBSOCKET_MAX_OPERATIONS", 100, { min: 1 }),
    websocketMaxBuffered: integer("HASURA_GRAPHQL_WEBSOCKET_MAX_BUFFERED_BYTES", 16 * 1024 * 1024, { min: 1024 }),
    // How often stored asynchronous action calls are looked for (ms; 0 stops this instance delivering them), and how many at once.
    // Remote schema permissions (Hasura's flag; off: every role sees every remote schema whole).
    remoteSchemaPermissions: boolean("HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS", false),
    asyncActionsFetchIntervalMs: integer("HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL", 1000, { min: 0 }),
    asyncActionsFetchBatchSize: integer("HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_BATCH_SIZE", 10, { min: 1 }),
    // Event triggers (Hasura's names): deliveries at once, how often events are looked for (ms; 0
    // stops this instance delivering them), and how many are taken at once.
    eventsHttpPoolSize: integer("HASURA_GRAPHQL_EVENTS_HTTP_POOL_SIZE", 100, { min: 1 }),
    eventsFetchIntervalMs: integer("HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL", 1000, { min: 0 }),
    eventsFetchBatchSize: integer("HASURA_GRAPHQL_EVENTS_FETCH_BATCH_SIZE", 100, { min: 1 }),
    // Ours: seconds an instance's hold on an event lasts without renewal (renewed every third of it
    // while the event is delivered); another instance takes over a dead instance's events after it.
    eventsLeaseSeconds: integer("HASURA_GRAPHQL_EVENTS_LEASE_SECONDS", 30, { min: 3 }),
    extensionsSchema: string("HASURA_GRAPHQL_METADATA_DATABASE_EXTENSIONS_SCHEMA", "public"),
    logLevel: oneOf(["HASURA_GRAPHQL_LOG_LEVEL", "LOG_LEVEL"], LOG_LEVELS, "info"),
    logFormat: oneOf("LOG_FORMAT", LOG_FORMATS, "auto"),
  });
}

export type GraphqlConfig = ReturnType<typeof readGraphqlConfig>;
