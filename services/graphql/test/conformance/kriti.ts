/**
 * Runs Kriti's own golden tests (https://github.com/hasura/kriti-lang, test/data) against this
 * engine's Kriti: every evaluation example against `source.json` bound to `$` with the basic
 * functions, compared with its golden JSON; every parser example that must parse, and every one
 * that must fail with Kriti's message. Outside `npm test` (it needs a checkout):
 *   git clone https://github.com/hasura/kriti-lang /tmp/kriti-lang
 *   npm run conformance:kriti -w services/graphql -- /tmp/kriti-lang
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { compileKriti, type Json, KritiError } from "../../src/engine/transforms/kriti/index.js";

const checkout = process.argv[2];
if (!checkout) {
  console.error("usage: npm run conformance:kriti -w services/graphql -- <kriti-lang checkout>");
  process.exit(2);
}
const data = join(checkout, "test", "data");
const examples = (dir: string) =>
  readdirSync(join(data, dir, "examples"))
    .filter((f) => f.endsWith(".kriti"))
    .sort()
    .map((f) => ({ name: f.replace(/\.kriti$/, ""), source: readFileSync(join(data, dir, "examples", f), "utf8") }));
const failures: string[] = [];
let passed = 0;
const check = (name: string, ok: boolean, detail: string) => {
  if (ok) passed++;
  else failures.push(`${name}: ${detail}`);
};
const attempt = <T>(run: () => T): T | KritiError | Error => {
  try {
    return run();
  } catch (error) {
    return error as Error;
  }
};

const source = JSON.parse(readFileSync(join(data, "eval", "success", "source.json"), "utf8")) as Json;
for (const { name, source: template } of examples("eval/success")) {
  const expected = JSON.parse(readFileSync(join(data, "eval", "success", "golden", `${name}.json`), "utf8"));
  const actual = attempt(() => compileKriti(template).render({ $: source }));
  check(`eval ${name}`, isDeepStrictEqual(actual, expected), actual instanceof Error ? actual.message : JSON.stringify(actual));
}
for (const { name, source: template } of examples("parser/success")) {
  const result = attempt(() => compileKriti(template));
  check(`parse ${name}`, !(result instanceof Error), result instanceof Error ? result.message : "");
}
for (const { name, source: template } of examples("parser/failure")) {
  const golden = readFileSync(join(data, "parser", "failure", "golden", `${name}.txt`), "utf8");
  const result = attempt(() => compileKriti(template));
  const message = result instanceof KritiError ? result.message : null;
  check(`parse failure ${name}`, message !== null && golden.includes(`_message = ${JSON.stringify(message)}`), message ?? "parsed");
}
console.log(`Kriti golden tests: ${passed}/${passed + failures.length} pass`);
for (const failure of failures) console.log(`  FAIL ${failure}`);
process.exit(failures.length ? 1 : 0);
