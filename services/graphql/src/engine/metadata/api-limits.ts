/**
 * API limits metadata (`api_limits`, https://hasura.io/docs/2.0/security/api-limits/): parsed as
 * Hasura decodes it and kept in the form it exports (the `ApiLimit` type of Hasura's
 * server/src-lib/Hasura/RQL/Types/ApiLimit.hs: keys in its order, `per_role` always present,
 * `unique_params` null when unset, unknown keys dropped), and the `set_api_limits` /
 * `remove_api_limits` operations (server/src-lib/Hasura/RQL/DDL/ApiLimit.hs). Limits with nothing
 * set are left out of metadata, as export_metadata leaves out Hasura's empty ApiLimit.
 * Enforcement is in ../limits/.
 */
import { asObject, at, type Json, optionalBoolean, parseFailed, requireKey } from "./args.js";
import { ARGS, type Operation, success } from "./edit.js";
import type { Metadata } from "./types.js";

export interface Limit<T> {
  global: T;
  per_role: Record<string, T>;
}

/** `IP`, or the session variables (lower-cased, `x-hasura-*`) whose values, with the role, key a client. */
export type UniqueParams = "IP" | string[];

export interface RateLimitConfig {
  max_reqs_per_min: number;
  unique_params: UniqueParams | null;
}

export interface ApiLimits {
  rate_limit?: Limit<RateLimitConfig>;
  depth_limit?: Limit<number>;
  node_limit?: Limit<number>;
  /** Seconds, fractions allowed. */
  time_limit?: Limit<number>;
  batch_limit?: Limit<number>;
  disabled: boolean;
}

function kind(value: unknown): string {
  if (value === null) return "Null";
  if (Array.isArray(value)) return "Array";
  if (typeof value === "object") return "Object";
  return typeof value === "string" ? "String" : typeof value === "boolean" ? "Boolean" : "Number";
}

/** Aeson's Int: a whole number. */
function int(value: unknown, path: string): number {
  if (typeof value !== "number") throw parseFailed(`parsing Int failed, expected Number, but encountered ${kind(value)}`, path);
  if (!Number.isInteger(value)) throw parseFailed(`parsing Int failed, unexpected floating number ${value}`, path);
  return value;
}

/** Seconds (Hasura's DiffTime): any number. */
function seconds(value: unknown, path: string): number {
  if (typeof value !== "number") throw parseFailed(`parsing DiffTime failed, expected Number, but encountered ${kind(value)}`, path);
  return value;
}

const UNIQUE_PARAMS_ERROR = "Not a valid value. Should be either: 'IP' or a list of Hasura session variables";

function uniqueParams(value: unknown, path: string): UniqueParams | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" && value.toLowerCase() === "ip") return "IP";
  if (!Array.isArray(value)) throw parseFailed(UNIQUE_PARAMS_ERROR, path);
  return value.map((name) => {
    // Hasura's isSessionVariable: an `x-hasura-` prefix, any case; the role is keyed on anyway.
    const lower = typeof name === "string" ? name.toLowerCase() : "";
    if (!lower.startsWith("x-hasura-") || lower === "x-hasura-role") throw parseFailed(UNIQUE_PARAMS_ERROR, path);
    return name as string;
  });
}

function rateLimitConfig(value: unknown, path: string): RateLimitConfig {
  const obj = asObject(value, path);
  return {
    max_reqs_per_min: int(requireKey(obj, "max_reqs_per_min", path), at(path, "max_reqs_per_min")),
    unique_params: uniqueParams(obj.unique_params, at(path, "unique_params")),
  };
}

function limit<T>(value: unknown, path: string, item: (value: unknown, path: string) => T): Limit<T> {
  const obj = asObject(value, path);
  const perRole: Record<string, T> = {};
  if (obj.per_role !== undefined && obj.per_role !== null) {
    const rolesPath = at(path, "per_role");
    for (const [role, v] of Object.entries(asObject(obj.per_role, rolesPath))) perRole[role] = item(v, at(rolesPath, role));
  }
  return { global: item(requireKey(obj, "global", path), at(path, "global")), per_role: perRole };
}

/** Hasura's ApiLimit decoder, with the value in its exported form. */
export function parseApiLimits(value: unknown, path: string): ApiLimits {
  const obj = asObject(value, path);
  const optional = <T>(key: string, item: (value: unknown, path: string) => T): Limit<T> | undefined =>
    obj[key] === undefined || obj[key] === null ? undefined : limit(obj[key], at(path, key), item);
  const out: ApiLimits = { disabled: false };
  const rate = optional("rate_limit", rateLimitConfig);
  const depth = optional("depth_limit", int);
  const nodes = optional("node_limit", int);
  const time = optional("time_limit", seconds);
  const batch = optional("batch_limit", int);
  if (rate) out.rate_limit = rate;
  if (depth) out.depth_limit = depth;
  if (nodes) out.node_limit = nodes;
  if (time) out.time_limit = time;
  if (batch) out.batch_limit = batch;
  // Last, as Hasura writes it.
  const { disabled: _, ...limits } = out;
  return { ...limits, disabled: optionalBoolean(obj, "disabled", path) ?? false };
}

export function isEmptyApiLimits(limits: ApiLimits): boolean {
  return !limits.disabled && Object.keys(limits).length === 1;
}

/** Metadata with `api_limits` set, or without the key when the limits set nothing. */
function withLimits(metadata: Metadata, limits: ApiLimits | undefined): Metadata {
  const { api_limits: _, ...rest } = metadata;
  return limits && !isEmptyApiLimits(limits) ? ({ ...rest, api_limits: limits } as Metadata) : (rest as Metadata);
}

/** For normalizeMetadata: a document's `api_limits` checked and in exported form (absent when empty). */
export function normalizeApiLimitsKey(obj: Json, path: string): Json {
  if (!("api_limits" in obj)) return obj;
  const raw = obj.api_limits;
  const limits = raw === undefined || raw === null ? undefined : parseApiLimits(raw, at(path, "api_limits"));
  return withLimits(obj as Metadata, limits);
}

/** `set_api_limits`: the arguments replace every limit. */
export const setApiLimits: Operation = (metadata, args) => success(withLimits(metadata, parseApiLimits(args, ARGS)));

/** `remove_api_limits`: no limits any more; its arguments, if any, are not looked at (as Hasura). */
export const removeApiLimits: Operation = (metadata) => success(withLimits(metadata, undefined));
