/**
 * npm run demo -w services/catalog -- --out TARGET [--schema NAME] [--products N] [--stores N]
 *   [--regions N] [--snapshots N] [--seed N] [--end YYYY-MM-DD]
 * Builds a demo catalog: TARGET is a new SQLite file (a path or sqlite:///path) or a PostgreSQL
 * database (postgresql://...) whose catalog tables are missing or empty. Sizes default to the one
 * `npm start` uses.
 */
import { resolve } from "node:path";
import { type CatalogTarget, parseCatalogUrl } from "../db/url.js";
import { DEFAULT_SEED, DEMO_SIZE, type GenerateCounts, type GenerateOptions, generateCatalog } from "./generate.js";
import { generateCatalogPostgres } from "./postgres.js";

const USAGE =
  "usage: npm run demo -w services/catalog -- --out FILE|sqlite:///FILE|postgresql://... [--schema NAME] [--products N] [--stores N] [--regions N] [--snapshots N] [--seed N] [--end YYYY-MM-DD]";

interface Command {
  target: CatalogTarget;
  schema: string | undefined;
  options: GenerateOptions;
}

function parse(argv: string[]): Command {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag = "", inline] = arg.split("=", 2);
    if (!flag.startsWith("--")) throw new Error(`unexpected argument ${arg}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    values.set(flag.slice(2), value);
  }
  const known = new Set(["out", "schema", "products", "stores", "regions", "snapshots", "seed", "end"]);
  for (const name of values.keys()) if (!known.has(name)) throw new Error(`unknown option --${name}`);
  const out = values.get("out");
  if (!out) throw new Error("--out is required");
  // npm runs workspace scripts inside the workspace; resolve relative to where the user typed the command.
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const target: CatalogTarget = /^[a-z][a-z0-9+]*:\/\//i.test(out)
    ? parseCatalogUrl(out, cwd)
    : { kind: "sqlite", path: resolve(cwd, out) };
  const schema = values.get("schema");
  if (schema !== undefined && target.kind !== "postgres") throw new Error("--schema applies to a PostgreSQL target only");
  const number = (name: string, fallback: number) => {
    const text = values.get(name);
    if (text === undefined) return fallback;
    const value = Number(text.replaceAll("_", ""));
    if (!Number.isInteger(value)) throw new Error(`--${name} must be an integer, got ${text}`);
    return value;
  };
  const end = values.get("end");
  const endAt = end === undefined ? undefined : new Date(end);
  if (endAt && Number.isNaN(endAt.getTime())) throw new Error(`--end must be a date, got ${end}`);
  return {
    target,
    schema,
    options: {
      products: number("products", DEMO_SIZE.products),
      stores: number("stores", DEMO_SIZE.stores),
      regions: number("regions", DEMO_SIZE.regions),
      snapshots: number("snapshots", DEMO_SIZE.snapshots),
      seed: number("seed", DEFAULT_SEED),
      ...(endAt ? { endAt } : {}),
      onProgress: (message) => console.error(`[demo] ${message}`),
    },
  };
}

async function run({ target, schema, options }: Command): Promise<{ where: string; counts: GenerateCounts }> {
  if (target.kind === "sqlite") return { where: target.path, counts: generateCatalog(target.path, options) };
  const counts = await generateCatalogPostgres(target.url, { ...options, ...(schema === undefined ? {} : { schema }) });
  const url = new URL(target.url);
  url.password = "";
  return { where: `${url.toString()}${schema ? ` (schema ${schema})` : ""}`, counts };
}

let command: Command;
try {
  command = parse(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  console.error(USAGE);
  process.exit(1);
}
try {
  const { where, counts } = await run(command);
  console.log(`catalog written to ${where}`);
  for (const [name, value] of Object.entries(counts)) console.log(`  ${name.padEnd(18)} ${value}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
