/**
 * npm run demo -w services/catalog -- --out ./catalog.db [--products N] [--stores N] [--regions N]
 *   [--snapshots N] [--seed N] [--end YYYY-MM-DD]
 * Builds a demo catalog file; sizes default to the one `npm start` uses.
 */
import { resolve } from "node:path";
import { DEFAULT_SEED, DEMO_SIZE, type GenerateOptions, generateCatalog } from "./generate.js";

const USAGE =
  "usage: npm run demo -w services/catalog -- --out FILE [--products N] [--stores N] [--regions N] [--snapshots N] [--seed N] [--end YYYY-MM-DD]";

function parse(argv: string[]): { out: string; options: GenerateOptions } {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag = "", inline] = arg.split("=", 2);
    if (!flag.startsWith("--")) throw new Error(`unexpected argument ${arg}`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    values.set(flag.slice(2), value);
  }
  const known = new Set(["out", "products", "stores", "regions", "snapshots", "seed", "end"]);
  for (const name of values.keys()) if (!known.has(name)) throw new Error(`unknown option --${name}`);
  const out = values.get("out");
  if (!out) throw new Error("--out is required");
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
    // npm runs workspace scripts inside the workspace; resolve relative to where the user typed the command.
    out: resolve(process.env.INIT_CWD ?? process.cwd(), out),
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

try {
  const { out, options } = parse(process.argv.slice(2));
  const counts = generateCatalog(out, options);
  console.log(`catalog written to ${out}`);
  for (const [name, value] of Object.entries(counts)) console.log(`  ${name.padEnd(18)} ${value}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  console.error(USAGE);
  process.exitCode = 1;
}
