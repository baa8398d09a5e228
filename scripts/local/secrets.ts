/**
 * The local platform's keys and secrets, as `supabase start` provides them: a JWT secret, the
 * anon and service_role API keys signed with it (HS256, Supabase's format, plus the Hasura claims
 * that make the service_role key an admin of the GraphQL engine), opaque publishable/secret keys
 * that stand for them, and the GraphQL admin secret. Generated once per data directory and kept
 * in `<data>/secrets.json` (mode 0600), so they survive restarts. A value set in the environment
 * wins and is never stored or printed; a key that can only be derived from such a value is not
 * printed either.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "@platform/core";
import { SignJWT } from "jose";
import { firstSet, NAMES } from "./env.js";

/** Where a value came from: only `generated` and `stored` values are ours to print. */
export type Source = "generated" | "stored" | "environment" | "derived";

export interface Secret {
  value: string;
  source: Source;
}

export interface LocalSecrets {
  jwtSecret: Secret;
  anonKey: Secret;
  serviceRoleKey: Secret;
  publishableKey: Secret | null;
  secretKey: Secret | null;
  graphqlAdminSecret: Secret;
  /** What the engine's cron deliveries carry and the MetaGame backend's cron targets check. */
  metagameCronSecret: Secret;
}

/** The `iss` of the API keys; user session tokens carry the auth service's URL instead. */
export const API_KEY_ISSUER = "supabase";
const HASURA_CLAIMS = "https://hasura.io/jwt/claims";
const TEN_YEARS_S = 10 * 365 * 24 * 3600;

/** Each secret's settings, by the names the services read them under. */
const ENV_NAMES = {
  jwtSecret: NAMES.authJwtSecret,
  anonKey: NAMES.gatewayAnon,
  serviceRoleKey: NAMES.gatewayService,
  publishableKey: NAMES.gatewayPublishable,
  secretKey: NAMES.gatewaySecret,
  graphqlAdminSecret: NAMES.graphqlAdminSecret,
  metagameCronSecret: NAMES.metagameCronSecret,
} as const;

type Stored = Partial<Record<keyof typeof ENV_NAMES, string>> & { version?: number; createdAt?: string };

export const secretsFile = (dataDir: string) => join(dataDir, "secrets.json");

function readStored(path: string): Stored {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as Stored) : {};
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${(error as Error).message}); delete it to generate new keys`);
  }
}

function writeStored(path: string, stored: Stored): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

const random = (bytes: number) => randomBytes(bytes).toString("base64url");

/** A Supabase-style API key: HS256 over `{iss, role, iat, exp}`, with the role the GraphQL engine should give it. */
export async function mintApiKey(secret: string, role: "anon" | "service_role", issuedAt = Math.floor(Date.now() / 1000)): Promise<string> {
  const hasuraRole = role === "service_role" ? "admin" : "anon";
  return new SignJWT({ role, [HASURA_CLAIMS]: { "x-hasura-default-role": hasuraRole, "x-hasura-allowed-roles": [hasuraRole] } })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(API_KEY_ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TEN_YEARS_S)
    .sign(new TextEncoder().encode(secret));
}

/** Reads, completes and (when something new was generated) saves the data directory's secrets. */
export async function resolveLocalSecrets(env: Env, dataDir: string): Promise<LocalSecrets> {
  const path = secretsFile(dataDir);
  const stored = readStored(path);
  let changed = false;
  const keep = (name: keyof typeof ENV_NAMES, make: () => string): Secret => {
    const existing = stored[name];
    if (existing) return { value: existing, source: "stored" };
    stored[name] = make();
    changed = true;
    return { value: stored[name] as string, source: "generated" };
  };
  const envValue = (name: keyof typeof ENV_NAMES): Secret | undefined => {
    const value = firstSet(env, ENV_NAMES[name]);
    return value === undefined ? undefined : { value, source: "environment" };
  };

  const jwtSecret = envValue("jwtSecret") ?? keep("jwtSecret", () => random(32));
  const ownSecret = jwtSecret.source !== "environment";
  // Keys signed with the stored secret are ours only while that secret is the one in use.
  const apiKey = async (name: "anonKey" | "serviceRoleKey", role: "anon" | "service_role"): Promise<Secret> => {
    const given = envValue(name);
    if (given) return given;
    if (!ownSecret) return { value: await mintApiKey(jwtSecret.value, role), source: "derived" };
    const minted = stored[name] ? undefined : await mintApiKey(jwtSecret.value, role);
    return keep(name, () => minted as string);
  };
  const anonKey = await apiKey("anonKey", "anon");
  const serviceRoleKey = await apiKey("serviceRoleKey", "service_role");
  // An opaque key is as powerful as the token it stands for: made here only for tokens of ours.
  const opaque = (name: "publishableKey" | "secretKey", prefix: string, standsFor: Secret): Secret | null =>
    envValue(name) ??
    (standsFor.source === "generated" || standsFor.source === "stored" ? keep(name, () => `${prefix}${random(24)}`) : null);
  const publishableKey = opaque("publishableKey", "sb_publishable_", anonKey);
  const secretKey = opaque("secretKey", "sb_secret_", serviceRoleKey);
  const graphqlAdminSecret = envValue("graphqlAdminSecret") ?? keep("graphqlAdminSecret", () => random(24));
  const metagameCronSecret = envValue("metagameCronSecret") ?? keep("metagameCronSecret", () => random(24));

  if (changed) {
    mkdirSync(dataDir, { recursive: true });
    writeStored(path, { version: 1, createdAt: stored.createdAt ?? new Date().toISOString(), ...stored });
  }
  return { jwtSecret, anonKey, serviceRoleKey, publishableKey, secretKey, graphqlAdminSecret, metagameCronSecret };
}

/** Whether the summary may show this value. */
export function printable(secret: Secret | null): boolean {
  return secret !== null && (secret.source === "generated" || secret.source === "stored");
}
