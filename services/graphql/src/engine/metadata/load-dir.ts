/**
 * Reads a Hasura project's metadata directory the way the cli-migrations image does
 * (HASURA_GRAPHQL_METADATA_DIR), so an existing project loads unchanged:
 *
 * - v3 (config v3 CLI): `version.yaml` says 3, `databases/databases.yaml` lists the sources,
 *   and `!include <file>` pulls in `tables.yaml`, per-table files, functions, ...
 * - v2 / v1: one `tables.yaml` (+ `functions.yaml`), or a single exported `metadata.json` /
 *   `metadata.yaml`; it becomes the `default` source.
 *
 * Both layouts share the top-level files (actions, remote schemas, allow list, ...), which are
 * kept as they are. `!include` is accepted both as a YAML tag (`!include x.yaml`) and as the
 * quoted string the CLI writes (`"!include x.yaml"`); paths are relative to the including file.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse, type ScalarTag } from "yaml";
import { HasuraError } from "../errors/index.js";
import { ActionsSdlError, mergeActionsSdl } from "./actions-sdl.js";
import { isObject, type Json } from "./args.js";
import { normalizeMetadata } from "./normalize.js";
import type { Metadata } from "./types.js";

class IncludeRef {
  constructor(readonly target: string) {}
}

const includeTag: ScalarTag = {
  tag: "!include",
  resolve: (value: string) => new IncludeRef(value.trim()),
};

const INCLUDE_STRING = /^!include\s+(.+)$/;

/** Files beside the tables that Hasura keeps at the top of metadata, by metadata key. */
const TOP_LEVEL_FILES: Record<string, string> = {
  "allow_list.yaml": "allowlist",
  "api_limits.yaml": "api_limits",
  "backend_configs.yaml": "backend_configs",
  "cron_triggers.yaml": "cron_triggers",
  "graphql_schema_introspection.yaml": "graphql_schema_introspection",
  "inherited_roles.yaml": "inherited_roles",
  "metrics_config.yaml": "metrics_config",
  "network.yaml": "network",
  "opentelemetry.yaml": "opentelemetry",
  "query_collections.yaml": "query_collections",
  "remote_schemas.yaml": "remote_schemas",
  "rest_endpoints.yaml": "rest_endpoints",
};

export class MetadataDirError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MetadataDirError";
  }
}

/** Parses one YAML file and resolves its includes, recursively. */
function readYaml(file: string, chain: readonly string[] = []): unknown {
  const path = resolve(file);
  if (chain.includes(path)) throw new MetadataDirError(`!include cycle: ${[...chain, path].join(" -> ")}`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const from = chain.length > 0 ? ` (included from ${chain[chain.length - 1]})` : "";
    throw new MetadataDirError(`cannot read ${path}${from}`, { cause: error });
  }
  let value: unknown;
  try {
    value = parse(text, { customTags: [includeTag] });
  } catch (error) {
    throw new MetadataDirError(`${path}: ${(error as Error).message}`, { cause: error });
  }
  return resolveIncludes(value, dirname(path), [...chain, path]);
}

function resolveIncludes(value: unknown, dir: string, chain: readonly string[]): unknown {
  if (value instanceof IncludeRef) return readYaml(join(dir, value.target), chain);
  if (typeof value === "string") {
    const match = INCLUDE_STRING.exec(value);
    return match ? readYaml(join(dir, (match[1] as string).trim()), chain) : value;
  }
  if (Array.isArray(value)) return value.map((item) => resolveIncludes(item, dir, chain));
  if (isObject(value)) {
    const out: Json = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveIncludes(item, dir, chain);
    return out;
  }
  return value;
}

function optionalYaml(dir: string, name: string): unknown {
  const file = join(dir, name);
  return existsSync(file) ? readYaml(file) : undefined;
}

function readVersion(dir: string): number | undefined {
  const value = optionalYaml(dir, "version.yaml");
  if (value === undefined || value === null) return undefined;
  const version = isObject(value) ? value.version : undefined;
  if (version !== 1 && version !== 2 && version !== 3)
    throw new MetadataDirError(`${join(dir, "version.yaml")}: unsupported version ${String(version)}`);
  return version;
}

/**
 * actions.yaml merged with the action and custom type SDL of actions.graphql, as Hasura's CLI
 * merges them (actions-sdl.ts); without an SDL file, actions.yaml as it is.
 */
function actionObjects(dir: string): Json {
  const yaml = optionalYaml(dir, "actions.yaml");
  const actions = isObject(yaml) ? yaml : {};
  const sdlFile = join(dir, "actions.graphql");
  if (!existsSync(sdlFile)) {
    const out: Json = {};
    if (actions.actions !== undefined && actions.actions !== null) out.actions = actions.actions;
    if (actions.custom_types !== undefined && actions.custom_types !== null) out.custom_types = actions.custom_types;
    return out;
  }
  try {
    return mergeActionsSdl(actions, readFileSync(sdlFile, "utf8"));
  } catch (error) {
    if (error instanceof ActionsSdlError) throw new MetadataDirError(`${sdlFile}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The files both layouts share: actions (with their SDL) and the other top-level objects. */
function topLevelObjects(dir: string): Json {
  const out: Json = actionObjects(dir);
  for (const [file, key] of Object.entries(TOP_LEVEL_FILES)) {
    const value = optionalYaml(dir, file);
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

function rawV3(dir: string): Json {
  const databasesFile = join(dir, "databases", "databases.yaml");
  const sources = existsSync(databasesFile) ? readYaml(databasesFile) : [];
  return { version: 3, sources: sources ?? [], ...topLevelObjects(dir) };
}

function rawV2(dir: string, version: number): Json {
  for (const single of ["metadata.json", "metadata.yaml"]) {
    const file = join(dir, single);
    // A v1 project (or a saved export) is one document holding everything.
    if (existsSync(file) && !existsSync(join(dir, "tables.yaml"))) return readYaml(file) as Json;
  }
  const tables = optionalYaml(dir, "tables.yaml") ?? [];
  const functions = optionalYaml(dir, "functions.yaml") ?? [];
  return { version, tables, functions, ...topLevelObjects(dir) };
}

/**
 * Loads a metadata directory into normalised v3 metadata. Throws MetadataDirError naming the
 * file (or the JSON path inside the assembled metadata) for anything it cannot read.
 */
export async function loadMetadataDir(dir: string): Promise<Metadata> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new MetadataDirError(`metadata directory ${dir} does not exist`);
  const version = readVersion(dir);
  const v3 = version === 3 || (version === undefined && existsSync(join(dir, "databases", "databases.yaml")));
  const raw = v3 ? rawV3(dir) : rawV2(dir, version ?? 1);
  try {
    return normalizeMetadata(raw);
  } catch (error) {
    if (error instanceof HasuraError) throw new MetadataDirError(`${dir}: ${error.message} (at ${error.path})`, { cause: error });
    throw error;
  }
}
