/**
 * `npm run keys`: the local keys and secrets of this data directory (what `npm start` printed).
 * `-- --env` prints them as shell assignments: eval "$(npm run -s keys -- --env)". Values set in
 * the environment are not printed.
 */
import { ConfigError, loadEnv } from "@platform/core";
import { printable, resolveLocalSecrets, type Secret } from "./local/secrets.js";
import { readStartSettings } from "./local/settings.js";

try {
  const env = loadEnv();
  const settings = readStartSettings(env);
  const secrets = await resolveLocalSecrets(env, settings.dataDir);
  const rows: Array<[string, Secret | null]> = [
    ["ANON_KEY", secrets.anonKey],
    ["SERVICE_ROLE_KEY", secrets.serviceRoleKey],
    ["SUPABASE_PUBLISHABLE_KEY", secrets.publishableKey],
    ["SUPABASE_SECRET_KEY", secrets.secretKey],
    ["JWT_SECRET", secrets.jwtSecret],
    ["HASURA_GRAPHQL_ADMIN_SECRET", secrets.graphqlAdminSecret],
    ["METAGAME_CRON_SECRET", secrets.metagameCronSecret],
  ];
  const asEnv = process.argv.includes("--env");
  for (const [name, secret] of rows) {
    if (!secret) continue;
    if (!printable(secret)) console.log(`# ${name} comes from the environment; not shown`);
    else console.log(asEnv ? `export ${name}='${secret.value}'` : `${name}=${secret.value}`);
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
