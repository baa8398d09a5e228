/**
 * Hasura claims out of a verified JWT payload: from the namespace (or namespace path), as JSON
 * or stringified JSON, or assembled by `claims_map`; then the two role claims checked with
 * Hasura's messages.
 */
import type { JWTPayload } from "jose";
import { invalidClaims, missingRoleClaim } from "../errors/index.js";
import { encodeJsonPath, readJsonPath } from "./json-path.js";
import type { JwtClaimsConfig } from "./jwt-config.js";
import { sessionValueText } from "./session-vars.js";

export const ALLOWED_ROLES = "x-hasura-allowed-roles";
export const DEFAULT_ROLE = "x-hasura-default-role";

export interface HasuraClaims {
  allowedRoles: string[];
  defaultRole: string;
  /** The other claims as session variables: lower-cased names, text values. */
  variables: Record<string, string>;
}

const REGISTERED = new Set(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"]);

/** Aeson's name for a JSON value's type, as in its `expected X, but encountered Y` messages. */
function jsonTypeName(value: unknown): string {
  if (value === null) return "Null";
  if (Array.isArray(value)) return "Array";
  if (typeof value === "object") return "Object";
  if (typeof value === "string") return "String";
  if (typeof value === "boolean") return "Boolean";
  return "Number";
}

function parseRoles(value: unknown, prefix: string): string[] {
  if (!Array.isArray(value)) throw invalidClaims(`${prefix}: parsing [] failed, expected Array, but encountered ${jsonTypeName(value)}`);
  return value.map((role) => parseRole(role, prefix));
}

function parseRole(value: unknown, prefix: string): string {
  if (typeof value !== "string")
    throw invalidClaims(`${prefix}: parsing Text failed, expected String, but encountered ${jsonTypeName(value)}`);
  if (value === "") throw invalidClaims(`${prefix}: empty string not allowed`);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function namespaceClaims(payload: JWTPayload, config: Exclude<JwtClaimsConfig, { kind: "map" }>): Record<string, unknown> {
  const unregistered = Object.fromEntries(Object.entries(payload).filter(([k]) => !REGISTERED.has(k)));
  const found = config.kind === "namespace" ? unregistered[config.namespace] : readJsonPath(unregistered, config.path);
  if (found === undefined) {
    throw invalidClaims(
      config.kind === "namespace"
        ? `claims key: '${config.namespace}' not found`
        : `claims not found at claims_namespace_path: '${encodeJsonPath(config.path)}'`,
    );
  }
  if (config.format === "json") {
    if (!isObject(found)) throw invalidClaims("expecting a json object when claims_format is json");
    return found;
  }
  if (typeof found !== "string") throw invalidClaims("expecting a string when claims_format is stringified_json");
  const where =
    config.kind === "namespace" ? `claims_namespace ${config.namespace}` : `claims_namespace_path ${encodeJsonPath(config.path)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(found);
  } catch {
    parsed = undefined;
  }
  if (!isObject(parsed)) throw invalidClaims(`expecting stringified json at: '${where}', but found: ${found}`);
  return parsed;
}

function mappedClaims(payload: JWTPayload, config: Extract<JwtClaimsConfig, { kind: "map" }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(config.map)) {
    if ("literal" in entry) {
      out[name] = entry.literal;
      continue;
    }
    const found = readJsonPath(payload, entry.path);
    if (found !== undefined) {
      // Role claims found by path are checked here with claims_map's own wording.
      if (name === ALLOWED_ROLES) parseRoles(found, `invalid ${ALLOWED_ROLES}; should be a list of roles`);
      if (name === DEFAULT_ROLE) parseRole(found, `invalid ${DEFAULT_ROLE}; should be a role`);
      out[name] = found;
    } else if (entry.default !== undefined) out[name] = entry.default;
    else if (name === ALLOWED_ROLES || name === DEFAULT_ROLE) throw missingRoleClaim(name);
    else throw invalidClaims(`JWT claim from claims_map, ${name} not found`);
  }
  return out;
}

/** The Hasura claims of a verified payload, per the configured claims source. */
export function extractClaims(payload: JWTPayload, config: JwtClaimsConfig): HasuraClaims {
  const raw = config.kind === "map" ? mappedClaims(payload, config) : namespaceClaims(payload, config);
  const claims = new Map<string, unknown>();
  for (const [name, value] of Object.entries(raw)) {
    const key = name.toLowerCase();
    if (key.startsWith("x-hasura-")) claims.set(key, value);
  }
  if (!claims.has(ALLOWED_ROLES)) throw missingRoleClaim(ALLOWED_ROLES);
  const allowedRoles = parseRoles(claims.get(ALLOWED_ROLES), `invalid ${ALLOWED_ROLES}; should be a list of roles`);
  if (!claims.has(DEFAULT_ROLE)) throw missingRoleClaim(DEFAULT_ROLE);
  const defaultRole = parseRole(claims.get(DEFAULT_ROLE), `invalid ${DEFAULT_ROLE}; should be a single role name`);
  const variables: Record<string, string> = {};
  for (const [name, value] of claims) {
    if (name === ALLOWED_ROLES || name === DEFAULT_ROLE) continue;
    // Hasura wants strings; other JSON is accepted here (see sessionValueText), but not null.
    if (value === null) throw invalidClaims("x-hasura-* claims: parsing Text failed, expected String, but encountered Null");
    variables[name] = sessionValueText(value);
  }
  return { allowedRoles, defaultRole, variables };
}
