/**
 * .env.example documents every setting: each variable a configuration reader looks at is named
 * there, each `# NAME=value` line names a variable some reader looks at, and each value shown is
 * the default the reader really uses. The readers are run on a Proxy env that records every
 * name they ask for, once with nothing set and once with every optional part switched on.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readAuthConfig, readAuthDatabaseConfig } from "@platform/auth";
import { readCatalogConfig } from "@platform/catalog";
import { ConfigError, type Env, loadEnv } from "@platform/core";
import { readGatewayConfig } from "@platform/gateway";
import { readGraphqlConfig } from "@platform/graphql";
import { readBackendConfig } from "@platform/metagame";
import { describe, expect, it } from "vitest";
// Not exported by @platform/auth: the SMS providers whose credentials auth reads only when chosen.
import { SMS_PROVIDERS } from "../../services/auth/src/config/messaging.js";
import { readStartSettings } from "../local/plan.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const text = readFileSync(join(root, ".env.example"), "utf8");

const ASSIGNMENT = /^# ([A-Z][A-Z0-9_]*(?:<PROVIDER>[A-Z0-9_]*)?)=(.*)$/;
const assignments = text
  .split("\n")
  .map((line) => ASSIGNMENT.exec(line))
  .filter((match) => match !== null)
  .map(([, name, value]) => ({ name: name as string, value: value as string }));
const providers = /^# <PROVIDER> is one of: (.+)$/m.exec(text)?.[1]?.split(/,\s*/) ?? [];
const expand = (name: string) => (name.includes("<PROVIDER>") ? providers.map((p) => name.replace("<PROVIDER>", p)) : [name]);
const placeholders = assignments
  .filter(({ name }) => name.includes("<PROVIDER>"))
  .map(({ name }) => new RegExp(`^${name.replace("<PROVIDER>", "(\\w+)")}$`));
const words = new Set(text.match(/\w+/g));

/** Named in the file, or GoTrue's GOTRUE_X for a covered AUTH_X, or a <PROVIDER> setting of a listed provider. */
function covered(name: string): boolean {
  if (words.has(name)) return true;
  if (name.startsWith("GOTRUE_") && covered(`AUTH_${name.slice("GOTRUE_".length)}`)) return true;
  return placeholders.some((pattern) => providers.includes(pattern.exec(name)?.[1] ?? ""));
}

type Values = Record<string, string>;

/** Every name `read` asks the env for; a ConfigError is fine (names are read before validation). */
function namesRead(read: (env: Env) => unknown, values: Values): Set<string> {
  const names = new Set<string>();
  const record = (name: string | symbol) => {
    if (typeof name === "string") names.add(name);
  };
  const env = new Proxy(values, {
    get(target, name) {
      record(name);
      return Reflect.get(target, name);
    },
    has(target, name) {
      record(name);
      return Reflect.has(target, name);
    },
  });
  try {
    read(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  return names;
}

const AUTH_REQUIRED = {
  AUTH_SITE_URL: "http://localhost:3000",
  AUTH_API_EXTERNAL_URL: "http://localhost:8081",
  AUTH_DB_DRIVER: "postgres",
  AUTH_JWT_SECRET: "x".repeat(32),
};

/**
 * Each reader with `base`, the least it needs to succeed, and `on`: envs switching on the optional
 * parts (on top of every *_ENABLED flag it reads, which is always set to true).
 */
const READERS: Record<string, { read: (env: Env) => unknown; base: Values; on: Values[] }> = {
  start: { read: (env) => readStartSettings(env, root), base: {}, on: [{}] },
  gateway: {
    read: readGatewayConfig,
    base: {},
    on: [
      {
        GATEWAY_ANON_KEY: "anon",
        GATEWAY_SERVICE_ROLE_KEY: "service",
        GATEWAY_PUBLISHABLE_KEY: "sb_publishable_x",
        GATEWAY_SECRET_KEY: "sb_secret_x",
      },
    ],
  },
  catalog: { read: (env) => readCatalogConfig(env, root), base: {}, on: [{}] },
  graphql: {
    read: readGraphqlConfig,
    base: {},
    on: [
      {
        HASURA_GRAPHQL_ADMIN_SECRET: "admin",
        HASURA_GRAPHQL_JWT_SECRETS: JSON.stringify([{ type: "HS256", key: "k".repeat(32) }]),
        HASURA_GRAPHQL_UNAUTHORIZED_ROLE: "anon",
      },
      { HASURA_GRAPHQL_ADMIN_SECRET: "admin", HASURA_GRAPHQL_AUTH_HOOK: "http://localhost/hook", HASURA_GRAPHQL_AUTH_HOOK_MODE: "POST" },
    ],
  },
  auth: {
    read: readAuthConfig,
    base: AUTH_REQUIRED,
    on: SMS_PROVIDERS.map((provider) => ({ ...AUTH_REQUIRED, AUTH_SMS_PROVIDER: provider, AUTH_SMTP_HOST: "smtp.example.com" })),
  },
  authDatabase: { read: readAuthDatabaseConfig, base: { AUTH_DB_DRIVER: "postgres" }, on: [{}] },
  metagame: { read: readBackendConfig, base: {}, on: [{}] },
};

/** Per reader: the names it reads with nothing set (every alias), and with everything on. */
const readBy = Object.fromEntries(
  Object.entries(READERS).map(([service, { read, on }]) => {
    const unset = namesRead(read, {});
    const flags = Object.fromEntries([...unset].filter((name) => name.endsWith("_ENABLED")).map((name) => [name, "true"]));
    const all = new Set([...unset, ...on.flatMap((values) => [...namesRead(read, { ...flags, ...values })])]);
    return [service, { unset, all }];
  }),
);

describe(".env.example", () => {
  it("names every setting the services read", () => {
    const missing = Object.entries(readBy).flatMap(([service, { all }]) =>
      [...all].filter((name) => !covered(name)).map((name) => `${service}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("names only settings that some service reads", () => {
    const read = new Set(Object.values(readBy).flatMap(({ all }) => [...all]));
    const unknown = assignments.flatMap(({ name }) => expand(name)).filter((name) => !read.has(name));
    expect(providers.length).toBeGreaterThan(0);
    expect(unknown).toEqual([]);
  });

  it("gives every setting a meaning on the line above", () => {
    const lines = text.split("\n");
    const bare = lines.filter((line, i) => {
      const above = lines[i - 1] ?? "";
      return ASSIGNMENT.test(line) && (!/^# \S/.test(above) || ASSIGNMENT.test(above));
    });
    expect(bare).toEqual([]);
  });

  it("shows the defaults the services use", () => {
    // The file as a user's .env with every line uncommented, read the way the services read .env.
    const dir = mkdtempSync(join(tmpdir(), "env-example-"));
    const lines = assignments.flatMap(({ name, value }) => expand(name).map((each) => `${each}=${value}`));
    writeFileSync(join(dir, ".env"), `${lines.join("\n")}\n`);
    const documented = loadEnv({ cwd: dir, env: {} });
    rmSync(dir, { recursive: true, force: true });

    // A value the reader rejects shows up as its problems, which differ from any configuration.
    const outcome = (read: (env: Env) => unknown, env: Values) => {
      try {
        // The raw environment a service keeps for templates (the graphql engine's actions) is not a setting.
        const { environment: _raw, ...settings } = read(env) as Record<string, unknown>;
        return settings;
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
    };
    let checked = 0;
    for (const [service, { read, base }] of Object.entries(READERS)) {
      const defaults = outcome(read, base);
      for (const [name, value] of Object.entries(documented)) {
        if (value === "" || value === undefined || name in base || !readBy[service]?.unset.has(name)) continue;
        expect.soft(outcome(read, { ...base, [name]: value }), `${service}: ${name}=${value}`).toEqual(defaults);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
