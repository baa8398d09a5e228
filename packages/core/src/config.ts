/**
 * Configuration: read once at start-up from the environment and `.env` files (the
 * environment wins), validated against a typed specification that reports every problem
 * in one error. Nothing else in the code base reads `process.env`.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseDotenv } from "dotenv";

export type Env = Readonly<Record<string, string | undefined>>;

/** Merges `.env` files (earlier files lose to later ones) under the process environment. */
export function loadEnv(options: { cwd?: string; files?: string[]; env?: Env } = {}): Env {
  const cwd = options.cwd ?? process.cwd();
  const merged: Record<string, string | undefined> = {};
  for (const file of options.files ?? [".env"]) {
    const path = resolve(cwd, file);
    if (existsSync(path)) Object.assign(merged, parseDotenv(readFileSync(path)));
  }
  // A variable the environment leaves undefined must not hide the file's value.
  for (const [name, value] of Object.entries(options.env ?? process.env)) if (value !== undefined) merged[name] = value;
  return merged;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** A field reads the first non-empty variable among its names and turns it into a value. */
export interface Field<T> {
  readonly names: readonly string[];
  read(raw: string | undefined, name: string): { value: T } | { problem: string };
}

type Names = string | readonly string[];
const asNames = (names: Names): readonly string[] => (typeof names === "string" ? [names] : names);

function field<T>(names: Names, convert: (raw: string | undefined, name: string) => { value: T } | { problem: string }): Field<T> {
  return { names: asNames(names), read: convert };
}

export function string(names: Names, fallback: string): Field<string>;
export function string(names: Names): Field<string | undefined>;
export function string(names: Names, fallback?: string): Field<string | undefined> {
  return field<string | undefined>(names, (raw) => ({ value: raw ?? fallback }));
}

export function requiredString(names: Names): Field<string> {
  return field<string>(names, (raw, name) => (raw === undefined ? { problem: `${name} is required` } : { value: raw }));
}

export function integer(names: Names, fallback: number, bounds: { min?: number; max?: number } = {}): Field<number> {
  return field<number>(names, (raw, name) => {
    if (raw === undefined) return { value: fallback };
    const value = Number(raw);
    if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(value)) return { problem: `${name} must be an integer, got "${raw}"` };
    if (bounds.min !== undefined && value < bounds.min) return { problem: `${name} must be at least ${bounds.min}, got ${value}` };
    if (bounds.max !== undefined && value > bounds.max) return { problem: `${name} must be at most ${bounds.max}, got ${value}` };
    return { value };
  });
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

export function boolean(names: Names, fallback: boolean): Field<boolean> {
  return field<boolean>(names, (raw, name) => {
    if (raw === undefined) return { value: fallback };
    const key = raw.toLowerCase();
    if (TRUE.has(key)) return { value: true };
    if (FALSE.has(key)) return { value: false };
    return { problem: `${name} must be true or false, got "${raw}"` };
  });
}

export function oneOf<const T extends string>(names: Names, choices: readonly T[], fallback: T): Field<T> {
  return field<T>(names, (raw, name) => {
    if (raw === undefined) return { value: fallback };
    const found = choices.find((c) => c.toLowerCase() === raw.toLowerCase());
    return found !== undefined ? { value: found } : { problem: `${name} must be one of ${choices.join(", ")}, got "${raw}"` };
  });
}

/** A field with a custom conversion; `convert` throws an Error whose message names the problem. */
export function custom<T>(names: Names, convert: (raw: string | undefined) => T): Field<T> {
  return field<T>(names, (raw, name) => {
    try {
      return { value: convert(raw) };
    } catch (error) {
      return { problem: `${name}: ${(error as Error).message}` };
    }
  });
}

/**
 * Runs one reader of a configuration made of several: its ConfigError's problems join `problems`
 * (and undefined is returned), so the caller can report every problem of every part at once.
 */
export function collectProblems<T>(problems: string[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

export type ConfigOf<S> = { [K in keyof S]: S[K] extends Field<infer T> ? T : never };

/** Reads every field; throws one ConfigError listing all problems. Values are trimmed; empty means unset. */
export function readConfig<S extends Record<string, Field<unknown>>>(env: Env, spec: S): ConfigOf<S> {
  const problems: string[] = [];
  const result: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(spec)) {
    const name = f.names.find((n) => (env[n] ?? "").trim() !== "") ?? f.names[0] ?? key;
    const raw = env[name]?.trim() || undefined;
    const outcome = f.read(raw, name);
    if ("problem" in outcome) problems.push(outcome.problem);
    else result[key] = outcome.value;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return result as ConfigOf<S>;
}
