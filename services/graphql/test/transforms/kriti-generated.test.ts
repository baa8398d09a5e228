/**
 * Kriti's general rules checked over generated values (seeded; KRITI_SEED and KRITI_RUNS change
 * the run): every JSON document is a template that renders to itself (Kriti templates are a
 * superset of JSON), given it holds no `{{`; a string template renders its text with each
 * `{{ }}` part replaced (strings as they are, other values as JSON); an optional lookup never
 * fails on a missing path; any text, template or not, parses and renders or fails with a Kriti
 * error (the metadata API's and a call's answer), never another exception.
 */
import { Random } from "@platform/core";
import { describe, expect, it } from "vitest";
import { compileKriti, type Json, KritiError } from "../../src/engine/transforms/kriti/index.js";

const SEED = Number(process.env.KRITI_SEED) || 11;
const RUNS = Number(process.env.KRITI_RUNS) || 400;
/** Characters a generated string draws from: JSON's escapes, a lone `{`, non-ASCII and astral ones. */
const CHARS = ["a", "Z", "0", " ", "{", "}", "$", "?", ".", "'", '"', "\\", "/", "\n", "\t", "\u0001", "é", "世", "😀", "-", "_"];

function text(rng: Random): string {
  let out = "";
  const length = rng.int(8);
  for (let i = 0; i < length; i++) out += CHARS[rng.int(CHARS.length)];
  // `{{` opens an expression anywhere in a template, so it is the one thing JSON may hold that a template may not.
  while (out.includes("{{")) out = out.replaceAll("{{", "{ {");
  return out;
}

function value(rng: Random, depth: number): Json {
  const kind = rng.int(depth > 3 ? 4 : 6);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.chance(0.5) ? rng.int(2_000_000) - 1_000_000 : Number((rng.next() * 10 ** rng.int(12) - 5).toPrecision(1 + rng.int(15)));
    case 3:
      return text(rng);
    case 4:
      return Array.from({ length: rng.int(4) }, () => value(rng, depth + 1));
    default: {
      const out: Record<string, Json> = {};
      for (let i = rng.int(4); i > 0; i--) out[text(rng)] = value(rng, depth + 1);
      return out;
    }
  }
}

/**
 * Text for a string template written by hand: no quote, backslash or control character, and no
 * `{{`. Nor a trailing `{` before a part (`{{{` reads as `{{` then `{`), which the caller strips.
 */
function plain(rng: Random): string {
  let out = [...text(rng)].filter((ch) => ch >= " " && ch !== '"' && ch !== "\\").join("");
  while (out.includes("{{")) out = out.replaceAll("{{", "{");
  return out;
}

describe(`Kriti over ${RUNS} generated values (seed ${SEED})`, () => {
  it("renders every JSON document without `{{` to itself", () => {
    const rng = new Random(SEED);
    for (let i = 0; i < RUNS; i++) {
      const doc = value(rng, 0);
      const source = JSON.stringify(doc, null, rng.chance(0.5) ? 2 : undefined);
      expect(compileKriti(source).render({}), source).toEqual(doc);
    }
  });

  it("replaces each part of a string template: strings as they are, other values as JSON", () => {
    const rng = new Random(SEED + 1);
    for (let i = 0; i < RUNS; i++) {
      const before = plain(rng).replace(/\{$/, "");
      const after = plain(rng);
      const x = value(rng, 2);
      const rendered = compileKriti(`"${before}{{ $x }}${after}"`).render({ $x: x });
      expect(rendered).toBe(`${before}${typeof x === "string" ? x : JSON.stringify(x)}${after}`);
    }
  });

  it("answers null for an optional lookup of any missing path, and the value for a present one", () => {
    const rng = new Random(SEED + 2);
    for (let i = 0; i < RUNS; i++) {
      const doc = { a: value(rng, 1) };
      // A quoted key ends at `'` and may not hold `{` (Kriti's lexer).
      const key = text(rng).replace(/['{]/g, "");
      expect(compileKriti(`{{ $doc?['${key}'][0].x }}`).render({ $doc: doc })).toBeNull();
      expect(compileKriti("{{ $doc?.a }}").render({ $doc: doc })).toEqual(doc.a);
    }
  });

  it("parses and renders any sequence of Kriti's tokens, or refuses it with a Kriti error", () => {
    const pieces = ["{{", "}}", "{", "}", "[", "]", "(", ")", '"', "'", "$body", "x", ".", "?", "??", ",", ":", ":=", "range", "if"];
    pieces.push(
      "elif",
      "else",
      "end",
      "_",
      "1",
      "-2.5e3",
      "true",
      "null",
      "not",
      "in",
      "==",
      "&&",
      "\\",
      "\\n",
      " ",
      "#c\n",
      "size",
      "a-b",
    );
    const rng = new Random(SEED + 3);
    for (let i = 0; i < RUNS * 10; i++) {
      let source = "";
      for (let j = rng.int(14); j >= 0; j--) source += pieces[rng.int(pieces.length)];
      try {
        compileKriti(source).render({ $body: { a: [1, { b: 2 }] }, x: 1 });
      } catch (error) {
        expect(error, source).toBeInstanceOf(KritiError);
      }
    }
  });
});
