/**
 * What the acceptance run reads from a checkout of MetaGame (https://github.com/MetaFam/TheGame,
 * GPL: read at run time, never copied here): its Hasura project directory, the environment
 * variables that project's metadata names, and the SDL its backend serves as the `backend`
 * remote schema.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { TemplateIndex } from "./templates.js";

export interface Checkout {
  root: string;
  hasuraDir: string;
  migrationsDir: string;
  metadataDir: string;
  webDir: string;
}

export function openCheckout(root: string): Checkout {
  const checkout = {
    root,
    hasuraDir: join(root, "hasura"),
    migrationsDir: join(root, "hasura", "migrations"),
    metadataDir: join(root, "hasura", "metadata"),
    webDir: join(root, "packages", "web"),
  };
  for (const dir of [checkout.migrationsDir, checkout.metadataDir, checkout.webDir])
    if (!existsSync(dir)) throw new Error(`${root} is not a MetaGame checkout: ${dir} is missing`);
  return checkout;
}

/**
 * The variables the metadata reads: `{{VAR}}` templates, and `*_from_env` values (Hasura's
 * `url_from_env`, `webhook_from_env`, `value_from_env`).
 */
export function metadataEnvNames(metadataDir: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(metadataDir)) {
    const text = readFileSync(join(metadataDir, file), "utf8");
    for (const m of text.matchAll(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g)) names.add(m[1] as string);
    for (const m of text.matchAll(/_from_env:\s*['"]?([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(m[1] as string);
  }
  return [...names].sort();
}

/** Where MetaGame's backend defines the remote schema it serves (express-graphql over makeExecutableSchema). */
const REMOTE_SCHEMA_DIR = join("packages", "backend", "src", "handlers", "remote-schemas");

/** The remote schema's SDL: the `typeDefs` template of the backend's remote schema. */
export function remoteSchemaSdl(checkout: Checkout): string {
  const dir = join(checkout.root, REMOTE_SCHEMA_DIR);
  const typeDefs = new TemplateIndex(checkout.root).templatesUnder(dir).filter((t) => t.name === "typeDefs");
  if (typeDefs.length !== 1) throw new Error(`expected one typeDefs template under ${dir}, found ${typeDefs.length}`);
  return (typeDefs[0] as { text: string }).text;
}

/** The remote schemas of remote_schemas.yaml, each with the variable its URL is read from. */
export function remoteSchemaVariables(checkout: Checkout): Map<string, string> {
  const list = parseYaml(readFileSync(join(checkout.metadataDir, "remote_schemas.yaml"), "utf8")) as
    | { name: string; definition: { url_from_env?: string; url?: string } }[]
    | null;
  const out = new Map<string, string>();
  for (const remote of list ?? []) {
    const variable = remote.definition.url_from_env ?? /\{\{\s*(\w+)\s*\}\}/.exec(remote.definition.url ?? "")?.[1];
    if (!variable) throw new Error(`remote schema ${remote.name}: no variable names its URL`);
    out.set(remote.name, variable);
  }
  return out;
}

/**
 * The engine's settings for the checkout's own Hasura project: its migrations and metadata, the
 * remote schemas' variables pointing at `remoteUrl`, every other variable the metadata names at a
 * path of `sinkUrl`.
 */
export function checkoutEngineEnv(checkout: Checkout, remoteUrl: string, sinkUrl: string): Record<string, string> {
  const remoteVariables = new Set(remoteSchemaVariables(checkout).values());
  const env: Record<string, string> = {
    HASURA_GRAPHQL_MIGRATIONS_DIR: checkout.migrationsDir,
    HASURA_GRAPHQL_METADATA_DIR: checkout.metadataDir,
  };
  for (const name of metadataEnvNames(checkout.metadataDir))
    env[name] = remoteVariables.has(name) ? remoteUrl : `${sinkUrl}/${name.toLowerCase()}`;
  return env;
}
