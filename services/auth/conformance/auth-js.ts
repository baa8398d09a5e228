/**
 * Runs the official @supabase/auth-js integration suite, unchanged, against this auth service.
 * Not part of `npm test`: it needs a checkout of supabase/supabase-js with the suite's own jest
 * installed (see README.md next to this file).
 *
 *   npm run conformance:auth-js -w services/auth -- <checkout> [--database postgresql://...] [--only cli|docker] [--tests <regex>]
 *
 * <checkout> is the repository root or its packages/core/auth-js. The servers are started the
 * way the suite's two setups expect them (settings.ts): the Supabase CLI one on :54321/auth/v1
 * for jest.config.cli.js, and the GoTrues of infra/docker-compose.yml on :9999/:9998/:9997/:9996
 * for jest.config.docker.js, with an SMTP sink on :2500 for their mail. Each setup gets a fresh
 * database on the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres;
 * `--database pglite` for embedded PGlite), dropped at the end; the compose GoTrues share theirs,
 * as they share the compose file's one database. Server logs, the traffic log and jest's own
 * output are kept in the folder printed at the end.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createLogger, openScratchDatabase, type ScratchDatabase } from "@platform/core";
import { readAuthConfig } from "../src/config.js";
import { type RunningAuth, startAuth } from "../src/server.js";
import { type Front, startFront } from "./auth-js/front.js";
import { type FileOutcome, runJest } from "./auth-js/jest.js";
import { formatReport, totals } from "./auth-js/report.js";
import { CLI_PORT, cliServer, composeServers, type ServerSettings } from "./auth-js/settings.js";
import { startSmtpSink } from "./auth-js/smtp-sink.js";

/** The compose file's inbucket SMTP port, which the CLI's GoTrue is pointed at too. */
const SMTP_PORT = 2500;

interface Options {
  packageDir: string;
  databaseUrl: string | undefined;
  only: "cli" | "docker" | undefined;
  /** Jest's --testPathPatterns: run only the matching test files. */
  tests: string | undefined;
}

function readOptions(argv: string[]): Options {
  let checkout = process.env.AUTHJS_CHECKOUT;
  let database = process.env.AUTHJS_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  let only: Options["only"];
  let tests: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--database") database = argv[++i] as string;
    else if (arg === "--only") only = argv[++i] === "cli" ? "cli" : "docker";
    else if (arg === "--tests") tests = argv[++i];
    else checkout = arg;
  }
  if (!checkout)
    throw new Error("usage: auth-js.ts <supabase-js checkout> [--database postgresql://...|pglite] [--only cli|docker] [--tests <regex>]");
  // `npm run -w` runs in the package's folder: a relative path means the caller's.
  const root = resolve(process.env.INIT_CWD ?? process.cwd(), checkout);
  const nested = join(root, "packages/core/auth-js");
  const packageDir = existsSync(nested) ? nested : root;
  if (!existsSync(join(packageDir, "infra/docker-compose.yml")))
    throw new Error(`${packageDir} is not packages/core/auth-js of supabase-js`);
  return { packageDir, databaseUrl: database === "pglite" ? undefined : database, only, tests };
}

/** Upstream CI's "Generate RSA signing keys" step, when the checkout has none yet. */
function signingKeys(packageDir: string): string {
  const file = join(packageDir, "test/supabase/signing_keys.json");
  if (!existsSync(file)) execFileSync(process.execPath, ["test/generate-signing-keys.js"], { cwd: packageDir, stdio: "ignore" });
  return JSON.stringify(JSON.parse(readFileSync(file, "utf8")));
}

interface Started {
  auth: RunningAuth;
  front: Front;
}

async function startServer(settings: ServerSettings, scratch: ScratchDatabase, outputDir: string): Promise<Started> {
  const env = {
    ...settings.env,
    ...(scratch.url ? { DATABASE_URL: scratch.url } : {}),
    GOTRUE_SMTP_HOST: "127.0.0.1",
    GOTRUE_SMTP_PORT: String(SMTP_PORT),
    GOTRUE_API_HOST: "127.0.0.1",
    GOTRUE_API_PORT: "0",
    PORT: "0",
  };
  if (!scratch.url) delete env.DATABASE_URL;
  const config = readAuthConfig(env);
  const logger = createLogger({ level: config.log.level, name: settings.name, file: join(outputDir, `${settings.name}.log`) });
  const auth = await startAuth(config, logger, scratch.url ? {} : { db: scratch.db });
  const target = Number(new URL(auth.url).port);
  try {
    const front = await startFront({ ...settings, target, trafficLog: join(outputDir, "traffic.jsonl") });
    return { auth, front };
  } catch (error) {
    await auth.close();
    throw error;
  }
}

async function runSetup(
  label: string,
  servers: ServerSettings[],
  jestConfig: string,
  options: Options,
  outputDir: string,
): Promise<FileOutcome[]> {
  const scratch = await openScratchDatabase(options.databaseUrl, `authjs_${label}`);
  const started: Started[] = [];
  try {
    // One after the other: servers sharing a database would otherwise race on its migrations.
    for (const settings of servers) started.push(await startServer(settings, scratch, outputDir));
    console.log(`${label}: ${servers.map((s) => `${s.name} on :${s.port}${s.prefix}`).join(", ")}; running ${jestConfig}`);
    return await runJest(options.packageDir, jestConfig, outputDir, label, options.tests);
  } finally {
    for (const { auth, front } of started.reverse()) {
      await front.close();
      await auth.close();
    }
    await scratch.dispose();
  }
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const outputDir = mkdtempSync(join(tmpdir(), "auth-js-conformance-"));
  const began = Date.now();
  console.log(`suite: ${options.packageDir}\ndatabase: ${options.databaseUrl ?? "PGlite (embedded)"}\nlogs: ${outputDir}`);
  const sink = await startSmtpSink(SMTP_PORT);
  const reports: { title: string; files: FileOutcome[] }[] = [];
  try {
    if (options.only !== "docker") {
      const files = await runSetup("cli", [cliServer(signingKeys(options.packageDir))], "jest.config.cli.js", options, outputDir);
      reports.push({ title: `Supabase CLI setup (:${CLI_PORT}/auth/v1, jest.config.cli.js)`, files });
    }
    if (options.only !== "cli") {
      signingKeys(options.packageDir); // the docker-tests import nothing of it, but upstream generates it first too
      const files = await runSetup("docker", composeServers(options.packageDir), "jest.config.docker.js", options, outputDir);
      reports.push({ title: "docker-compose setup (jest.config.docker.js)", files });
    }
  } finally {
    await sink.close();
  }
  for (const report of reports) console.log(`\n${formatReport(report.title, report.files).join("\n")}`);
  const all = totals(reports.flatMap((r) => r.files));
  const seconds = Math.round((Date.now() - began) / 1000);
  console.log(
    `\nTOTAL ${all.passed}/${all.total} passed (failed ${all.failed}, skipped ${all.skipped}) in ${seconds}s; ${sink.mails.length} mails received`,
  );
  console.log(`server logs, traffic.jsonl and jest output: ${outputDir}`);
}

main().catch((error: unknown) => {
  console.error(`\nFAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
