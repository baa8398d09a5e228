/**
 * `HASURA_GRAPHQL_JWT_SECRET` (https://hasura.io/docs/latest/auth/authentication/jwt/) and the
 * list form `HASURA_GRAPHQL_JWT_SECRETS`, parsed and checked once at start-up. Problems are
 * collected and reported together, worded like Hasura's where it has words for them.
 */
import { createPublicKey, createSecretKey, type KeyObject, X509Certificate } from "node:crypto";
import { type JsonPath, parseJsonPath } from "./json-path.js";

export const JWT_KEY_TYPES = ["HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "Ed25519"] as const;
export type JwtKeyType = (typeof JWT_KEY_TYPES)[number];

export const DEFAULT_CLAIMS_NAMESPACE = "https://hasura.io/jwt/claims";

export type JwtClaimsFormat = "json" | "stringified_json";

/** Where the token is read from. */
export type JwtTokenLocation = { type: "Authorization" } | { type: "Cookie"; name: string } | { type: "CustomHeader"; name: string };

/** A `claims_map` entry: a literal, or a JSON path into the whole payload with an optional default. */
export type ClaimsMapValue = { literal: unknown } | { path: JsonPath; pathText: string; default?: unknown };

export type JwtClaimsConfig =
  | { kind: "namespace"; namespace: string; format: JwtClaimsFormat }
  | { kind: "namespace_path"; path: JsonPath; format: JwtClaimsFormat }
  /** Keys lower-cased; always holds x-hasura-allowed-roles and x-hasura-default-role. */
  | { kind: "map"; map: Record<string, ClaimsMapValue> };

export interface JwtConfig {
  /** The configured algorithm family; null for a `jwk_url` config without `type`. */
  type: JwtKeyType | null;
  /** The verification key of a `key` config; null when keys come from `jwk_url`. */
  key: KeyObject | null;
  jwkUrl: string | null;
  claims: JwtClaimsConfig;
  /** Accepted `aud` values; null means no audience check. */
  audience: string[] | null;
  issuer: string | null;
  /** Seconds of clock skew tolerated for `exp` and `nbf`. */
  allowedSkew: number;
  header: JwtTokenLocation;
}

/** Start-up configuration errors of the auth settings; `problems` lists each one. */
export class AuthConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "AuthConfigError";
  }
}

const CURVES: Partial<Record<JwtKeyType, string>> = { ES256: "prime256v1", ES384: "secp384r1", ES512: "secp521r1" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function importKey(type: JwtKeyType, raw: string, problems: string[]): KeyObject | null {
  if (type.startsWith("HS")) {
    const bytes = Buffer.from(raw, "utf8");
    const need = Number(type.slice(2)) / 8;
    if (bytes.length < need) {
      problems.push(`Invalid JWK: Key size too small; should be atleast ${need} characters`);
      return null;
    }
    return createSecretKey(bytes);
  }
  let key: KeyObject;
  try {
    key = raw.includes("BEGIN CERTIFICATE") ? new X509Certificate(raw).publicKey : createPublicKey(raw);
  } catch (error) {
    problems.push(`Invalid JWK: Could not decode PEM: ${(error as Error).message}`);
    return null;
  }
  const kind = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const ok = type.startsWith("RS") ? kind === "rsa" : type === "Ed25519" ? kind === "ed25519" : kind === "ec" && curve === CURVES[type];
  if (!ok) {
    problems.push(`Invalid JWK: the key is a ${kind}${curve ? ` (${curve})` : ""} key, which cannot verify ${type} tokens`);
    return null;
  }
  return key;
}

function parseClaimsMap(raw: unknown, problems: string[]): Record<string, ClaimsMapValue> {
  const map: Record<string, ClaimsMapValue> = {};
  if (!isObject(raw)) {
    problems.push("claims_map must be an object");
    return map;
  }
  for (const [name, value] of Object.entries(raw)) {
    const key = name.toLowerCase();
    const expected = key === "x-hasura-allowed-roles" ? "a list of roles" : "a string";
    const fits = (v: unknown): boolean =>
      key === "x-hasura-allowed-roles" ? Array.isArray(v) && v.every((r) => typeof r === "string") : typeof v === "string";
    if (isObject(value)) {
      if (typeof value.path !== "string") {
        problems.push(`claims_map.${name}: "path" must be a string`);
        continue;
      }
      try {
        const entry: ClaimsMapValue = { path: parseJsonPath(value.path), pathText: value.path };
        if (value.default !== undefined) {
          if (!fits(value.default)) problems.push(`claims_map.${name}: "default" must be ${expected}`);
          entry.default = value.default;
        }
        map[key] = entry;
      } catch (error) {
        problems.push(`claims_map.${name}: invalid JSON path ${(error as Error).message}`);
      }
    } else if (fits(value)) map[key] = { literal: value };
    else problems.push(`claims_map.${name} must be ${expected} or {"path": ..., "default": ...}`);
  }
  for (const required of ["x-hasura-allowed-roles", "x-hasura-default-role"]) {
    if (!(required in map) && !problems.some((p) => p.startsWith(`claims_map.${required}`))) {
      problems.push(`claims_map: ${required} is expected but not found`);
    }
  }
  return map;
}

function parseHeader(raw: unknown, problems: string[]): JwtTokenLocation {
  if (raw === undefined || raw === null) return { type: "Authorization" };
  const type = isObject(raw) && typeof raw.type === "string" ? raw.type.toLowerCase() : undefined;
  const name = isObject(raw) && typeof raw.name === "string" && raw.name !== "" ? raw.name : undefined;
  if (type === "authorization") return { type: "Authorization" };
  if ((type === "cookie" || type === "customheader") && name)
    return type === "cookie" ? { type: "Cookie", name } : { type: "CustomHeader", name };
  if (type === "cookie" || type === "customheader") problems.push(`header: type ${String(isObject(raw) ? raw.type : "")} needs a "name"`);
  else problems.push("header: expected 'type' is 'Authorization', 'Cookie' or 'CustomHeader'");
  return { type: "Authorization" };
}

function parseFormat(raw: unknown, problems: string[]): JwtClaimsFormat {
  if (raw === undefined || raw === null || raw === "json") return "json";
  if (raw === "stringified_json") return "stringified_json";
  problems.push(`claims_format must be "json" or "stringified_json"`);
  return "json";
}

function parseClaims(o: Record<string, unknown>, problems: string[]): JwtClaimsConfig {
  const format = parseFormat(o.claims_format, problems);
  if (o.claims_map !== undefined && o.claims_map !== null) return { kind: "map", map: parseClaimsMap(o.claims_map, problems) };
  const ns = o.claims_namespace;
  const nsPath = o.claims_namespace_path;
  if (ns != null && nsPath != null) problems.push("claims_namespace and claims_namespace_path both cannot be set");
  if (nsPath != null) {
    if (typeof nsPath !== "string") problems.push("claims_namespace_path must be a string");
    else {
      try {
        return { kind: "namespace_path", path: parseJsonPath(nsPath), format };
      } catch (error) {
        problems.push(`invalid JSON path claims_namespace_path error: ${(error as Error).message}`);
      }
    }
  }
  if (ns != null && typeof ns !== "string") problems.push("claims_namespace must be a string");
  return { kind: "namespace", namespace: typeof ns === "string" ? ns : DEFAULT_CLAIMS_NAMESPACE, format };
}

function parseKeySource(o: Record<string, unknown>, problems: string[]): Pick<JwtConfig, "type" | "key" | "jwkUrl"> {
  const none = { type: null, key: null, jwkUrl: null };
  const type = o.type;
  if (type != null && !(JWT_KEY_TYPES as readonly unknown[]).includes(type)) {
    problems.push(`Invalid JWK: Key type: ${String(type)} is not supported`);
    return none;
  }
  const hasKey = o.key != null;
  const hasUrl = o.jwk_url != null;
  if (!hasKey && !hasUrl) problems.push("key and jwk_url both cannot be empty");
  if (hasKey && hasUrl) problems.push("key, jwk_url both cannot be present");
  if (hasKey === hasUrl) return none;
  if (hasUrl) {
    const url = typeof o.jwk_url === "string" && URL.canParse(o.jwk_url) ? new URL(o.jwk_url) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      problems.push("jwk_url must be an http(s) URL");
      return none;
    }
    return { type: (type as JwtKeyType | undefined) ?? null, key: null, jwkUrl: url.toString() };
  }
  if (typeof o.key !== "string") problems.push("key must be a string");
  if (type == null) problems.push('"type" is required with "key"');
  if (typeof o.key !== "string" || type == null) return none;
  return { type: type as JwtKeyType, key: importKey(type as JwtKeyType, o.key, problems), jwkUrl: null };
}

/** Parses the JSON text of HASURA_GRAPHQL_JWT_SECRET; throws AuthConfigError naming every problem. */
export function parseJwtSecret(text: string): JwtConfig {
  const name = "HASURA_GRAPHQL_JWT_SECRET";
  return parseJwtSecretValue(parseJson(text, name), name);
}

/**
 * Parses the JSON text of HASURA_GRAPHQL_JWT_SECRETS, a list of secrets shaped as
 * HASURA_GRAPHQL_JWT_SECRET (https://hasura.io/docs/latest/auth/authentication/multiple-jwt-secrets/).
 * Every problem of every entry is reported, each under the entry's index.
 */
export function parseJwtSecrets(text: string): JwtConfig[] {
  const name = "HASURA_GRAPHQL_JWT_SECRETS";
  const list = parseJson(text, name);
  if (!Array.isArray(list)) throw new AuthConfigError([`${name} must be a JSON array of JWT secret objects`]);
  const problems: string[] = [];
  const configs: JwtConfig[] = [];
  list.forEach((entry, index) => {
    try {
      configs.push(parseJwtSecretValue(entry, `${name}[${index}]`));
    } catch (error) {
      if (!(error instanceof AuthConfigError)) throw error;
      problems.push(...error.problems);
    }
  });
  if (problems.length > 0) throw new AuthConfigError(problems);
  return configs;
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AuthConfigError([`${name} is not valid JSON: ${(error as Error).message}`]);
  }
}

/** One secret object; `name` (the variable, with the index of a list entry) prefixes each problem. */
function parseJwtSecretValue(o: unknown, name: string): JwtConfig {
  if (!isObject(o)) throw new AuthConfigError([`${name} must be a JSON object`]);
  const problems: string[] = [];
  const source = parseKeySource(o, problems);
  const claims = parseClaims(o, problems);
  const aud = o.audience;
  let audience: string[] | null = null;
  if (typeof aud === "string") audience = [aud];
  else if (Array.isArray(aud) && aud.every((a) => typeof a === "string")) audience = aud;
  else if (aud != null) problems.push("audience must be a string or a list of strings");
  if (o.issuer != null && typeof o.issuer !== "string") problems.push("issuer must be a string");
  const skew = o.allowed_skew ?? 0;
  if (typeof skew !== "number" || !Number.isFinite(skew) || skew < 0)
    problems.push("allowed_skew must be a non-negative number of seconds");
  const header = parseHeader(o.header, problems);
  if (problems.length > 0) throw new AuthConfigError(problems.map((p) => `${name}: ${p}`));
  return {
    ...source,
    claims,
    audience,
    issuer: typeof o.issuer === "string" ? o.issuer : null,
    allowedSkew: skew as number,
    header,
  };
}
