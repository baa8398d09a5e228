import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boolean, ConfigError, custom, integer, loadEnv, oneOf, readConfig, requiredString, string } from "../src/config.js";

describe("loadEnv", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "core-config-"));
    writeFileSync(join(dir, ".env"), 'FROM_FILE=file\nSHARED=file\nQUOTED="a b # c"\n# comment\nEMPTY_IN_ENV=file\n');
    writeFileSync(join(dir, ".env.local"), "SHARED=local\nLOCAL_ONLY=local\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("merges the .env file under the environment, the environment winning", () => {
    const env = loadEnv({ cwd: dir, env: { SHARED: "env", ENV_ONLY: "env" } });
    expect(env).toMatchObject({ FROM_FILE: "file", SHARED: "env", ENV_ONLY: "env", QUOTED: "a b # c" });
  });

  it("lets later files override earlier ones, and skips missing files", () => {
    const env = loadEnv({ cwd: dir, files: [".env", ".env.local", ".env.missing"], env: {} });
    expect(env).toMatchObject({ FROM_FILE: "file", SHARED: "local", LOCAL_ONLY: "local" });
  });

  it("keeps an empty environment value over the file, but not an undefined one", () => {
    const env = loadEnv({ cwd: dir, env: { EMPTY_IN_ENV: "", FROM_FILE: undefined } });
    expect(env.EMPTY_IN_ENV).toBe("");
    expect(env.FROM_FILE).toBe("file");
  });

  it("works without any file", () => {
    expect(loadEnv({ cwd: join(dir, "nowhere"), env: { A: "1" } })).toEqual({ A: "1" });
  });
});

describe("readConfig", () => {
  const spec = {
    port: integer(["AUTH_PORT", "GOTRUE_PORT", "PORT"], 8081, { min: 1, max: 65535 }),
    url: string(["AUTH_DATABASE_URL", "DATABASE_URL"]),
    siteUrl: string("AUTH_SITE_URL", "http://localhost:3000"),
    secret: requiredString(["AUTH_JWT_SECRET", "GOTRUE_JWT_SECRET"]),
    signup: boolean("AUTH_SIGNUP_ENABLED", true),
    level: oneOf("LOG_LEVEL", ["debug", "info", "warn"], "info"),
  };

  it("applies defaults when nothing is set", () => {
    const config = readConfig({ AUTH_JWT_SECRET: "s" }, spec);
    expect(config).toEqual({ port: 8081, url: undefined, siteUrl: "http://localhost:3000", secret: "s", signup: true, level: "info" });
  });

  it("reads the first non-empty of several names", () => {
    const env = { AUTH_PORT: "  ", GOTRUE_PORT: "9000", PORT: "7000", DATABASE_URL: "postgres://db", GOTRUE_JWT_SECRET: "g" };
    expect(readConfig(env, spec)).toMatchObject({ port: 9000, url: "postgres://db", secret: "g" });
    expect(readConfig({ ...env, AUTH_JWT_SECRET: "a" }, spec).secret).toBe("a");
  });

  it("trims values and treats blank ones as unset", () => {
    const config = readConfig({ AUTH_PORT: " 8000\n", AUTH_SITE_URL: "   ", AUTH_JWT_SECRET: "\tsecret " }, spec);
    expect(config).toMatchObject({ port: 8000, siteUrl: "http://localhost:3000", secret: "secret" });
  });

  it("reports every problem in one ConfigError, naming the variable that was read", () => {
    const env = { GOTRUE_PORT: "http", AUTH_SIGNUP_ENABLED: "maybe", LOG_LEVEL: "loud" };
    const error = catchConfigError(() => readConfig(env, spec));
    expect(error.problems).toEqual([
      'GOTRUE_PORT must be an integer, got "http"',
      "AUTH_JWT_SECRET is required",
      'AUTH_SIGNUP_ENABLED must be true or false, got "maybe"',
      'LOG_LEVEL must be one of debug, info, warn, got "loud"',
    ]);
    for (const problem of error.problems) expect(error.message).toContain(problem);
    expect(error.name).toBe("ConfigError");
  });

  it("enforces integer syntax and bounds", () => {
    const port = { port: spec.port };
    expect(readConfig({ PORT: "+80" }, port).port).toBe(80);
    expect(readConfig({ PORT: "65535" }, port).port).toBe(65535);
    for (const [raw, problem] of [
      ["0", "PORT must be at least 1, got 0"],
      ["65536", "PORT must be at most 65535, got 65536"],
      ["1.5", 'PORT must be an integer, got "1.5"'],
      ["1e3", 'PORT must be an integer, got "1e3"'],
      ["0x10", 'PORT must be an integer, got "0x10"'],
      ["99999999999999999999", 'PORT must be an integer, got "99999999999999999999"'],
    ] as const) {
      expect(catchConfigError(() => readConfig({ PORT: raw }, port)).problems).toEqual([problem]);
    }
  });

  it("parses booleans case-insensitively", () => {
    const flag = { on: boolean("FLAG", false) };
    for (const raw of ["1", "true", "TRUE", "yes", "On"]) expect(readConfig({ FLAG: raw }, flag).on).toBe(true);
    for (const raw of ["0", "false", "No", "off"]) expect(readConfig({ FLAG: raw }, { on: boolean("FLAG", true) }).on).toBe(false);
  });

  it("matches oneOf choices case-insensitively and returns the choice as declared", () => {
    const alg = { alg: oneOf("JWT_ALG", ["HS256", "RS256"], "HS256") };
    expect(readConfig({ JWT_ALG: "RS256" }, alg).alg).toBe("RS256");
    expect(readConfig({ JWT_ALG: "rs256" }, alg).alg).toBe("RS256");
    expect(readConfig({ LOG_LEVEL: "WARN" }, { level: spec.level }).level).toBe("warn");
  });

  it("runs custom conversions and reports their error message", () => {
    const origins = {
      origins: custom("CORS_ORIGINS", (raw) => {
        const list = (raw ?? "*").split(",").map((s) => s.trim());
        if (list.some((s) => s === "")) throw new Error("must be a comma-separated list without empty entries");
        return list;
      }),
    };
    expect(readConfig({}, origins).origins).toEqual(["*"]);
    expect(readConfig({ CORS_ORIGINS: "a.com, b.com" }, origins).origins).toEqual(["a.com", "b.com"]);
    expect(catchConfigError(() => readConfig({ CORS_ORIGINS: "a,,b" }, origins)).problems).toEqual([
      "CORS_ORIGINS: must be a comma-separated list without empty entries",
    ]);
  });
});

function catchConfigError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}
