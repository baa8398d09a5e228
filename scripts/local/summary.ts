/**
 * What `npm start` prints once everything answers: where each service is, the keys a client
 * needs, where the data lives and how to start over. Secrets appear only when this data
 * directory generated them; values from the environment are named, never shown.
 */
import { isAbsolute, relative } from "node:path";
import { type LocalSecrets, printable, type Secret } from "./secrets.js";

export interface SummaryInput {
  gateway: string;
  auth: string;
  graphql: string;
  catalog: string;
  /** The MetaGame backend (actions, remote schema, triggers, auth webhook). */
  backend: string;
  /** How the engine authenticates users: the backend's webhook, JWTs, or the user's own settings. */
  graphqlAuth: "webhook" | "jwt" | "own";
  secrets: LocalSecrets;
  autoconfirm: boolean;
  /** Mail the auth service sends is caught in-process and listed at `<auth>/_mail` (no SMTP_HOST, loopback). */
  mailCatcher: boolean;
  dataDir: string;
  sharedDatabase: string | null;
  catalogDatabase: string;
  cwd: string;
}

export interface Summary {
  urls: Record<string, string>;
  keys: Record<string, string>;
  notes: string[];
}

const shown = (secret: Secret | null): string | undefined => (secret && printable(secret) ? secret.value : undefined);

function hidden(secret: Secret | null, name: string): string | undefined {
  if (!secret || printable(secret)) return undefined;
  return secret.source === "environment"
    ? `${name} is set in the environment (not shown)`
    : `${name} is derived from a secret set in the environment (not shown)`;
}

export function buildSummary(input: SummaryInput): Summary {
  const { secrets } = input;
  // Everything through the gateway first (one origin, as a Supabase project URL), then each service direct.
  const urls: Record<string, string> = {
    gateway: input.gateway,
    auth: `${input.gateway}/auth/v1`,
    graphql: `${input.gateway}/graphql/v1`,
    console: `${input.gateway}/console`,
    catalog: `${input.gateway}/catalog`,
    "catalog docs": `${input.gateway}/catalog/docs`,
    "auth (direct)": input.auth,
    "graphql (direct)": `${input.graphql}/v1/graphql`,
    "catalog (direct)": input.catalog,
    "metagame backend": input.backend,
  };
  const keys: Record<string, string> = {};
  const notes: string[] = [];
  const add = (label: string, secret: Secret | null, envName: string) => {
    const value = shown(secret);
    if (value) keys[label] = value;
    const note = hidden(secret, envName);
    if (note) notes.push(note);
  };
  add("anon key", secrets.anonKey, "ANON_KEY");
  add("service_role key", secrets.serviceRoleKey, "SERVICE_ROLE_KEY");
  add("publishable key", secrets.publishableKey, "SUPABASE_PUBLISHABLE_KEY");
  add("secret key", secrets.secretKey, "SUPABASE_SECRET_KEY");
  add("JWT secret", secrets.jwtSecret, "AUTH_JWT_SECRET");
  add("GraphQL admin secret", secrets.graphqlAdminSecret, "HASURA_GRAPHQL_ADMIN_SECRET");

  if (input.graphqlAuth !== "own") {
    notes.push(
      `graphql serves MetaGame's players, guilds and quests; a signed-in auth user is role player (${input.graphqlAuth === "webhook" ? "through the backend's auth webhook" : "JWT mode"}), no token is role public`,
    );
  }
  if (input.autoconfirm) notes.push("email sign-ups are confirmed at once (AUTH_MAILER_AUTOCONFIRM=true)");
  if (input.mailCatcher)
    notes.push(`mail (sign-up confirmations, magic links, recovery, invites, email changes) is caught here, not sent: ${input.auth}/_mail`);
  // Paths under the working directory relative to it, others absolute.
  const where = (path: string) => {
    const rel = relative(input.cwd, path);
    return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
  };
  const data = where(input.dataDir);
  const catalog = isAbsolute(input.catalogDatabase) ? where(input.catalogDatabase) : input.catalogDatabase;
  notes.push(
    input.sharedDatabase
      ? `data: ${data}/ (PostgreSQL for auth and graphql in ${where(input.sharedDatabase)}, catalog ${catalog}, keys ${data}/secrets.json)`
      : `data: ${data}/ (catalog ${catalog}, keys ${data}/secrets.json)`,
  );
  notes.push(`start over: stop (Ctrl-C), delete ${data}/ and run npm start again (new keys are generated)`);
  notes.push('keys as shell variables: eval "$(npm run -s keys -- --env)"');
  return { urls, keys, notes };
}

const pad = (text: string, width: number) => text + " ".repeat(Math.max(1, width - text.length));

/** The summary as terminal lines. */
export function summaryLines(summary: Summary, seconds: number): string[] {
  const width = Math.max(...[...Object.keys(summary.urls), ...Object.keys(summary.keys)].map((k) => k.length)) + 2;
  return [
    "",
    `  Platform ready in ${seconds.toFixed(1)} s`,
    "",
    ...Object.entries(summary.urls).map(([label, url]) => `  ${pad(label, width)}${url}`),
    "",
    ...Object.entries(summary.keys).map(([label, value]) => `  ${pad(label, width)}${value}`),
    ...(Object.keys(summary.keys).length > 0 ? [""] : []),
    ...summary.notes.map((note) => `  ${note}`),
    "",
  ];
}
