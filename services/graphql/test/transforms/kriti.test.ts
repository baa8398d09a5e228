/**
 * Kriti templates (https://github.com/hasura/kriti-lang): the language as its README describes
 * it, its errors, and the bounds this engine adds. Kriti's own golden tests run outside
 * `npm test` (test/conformance/kriti.ts).
 */
import { describe, expect, it } from "vitest";
import { compileKriti, type Json, KritiError } from "../../src/engine/transforms/kriti/index.js";

const render = (template: string, bindings: Record<string, Json> = {}) => compileKriti(template).render(bindings);
const failure = (template: string, bindings: Record<string, Json> = {}) => {
  try {
    render(template, bindings);
  } catch (error) {
    if (error instanceof KritiError) return { code: error.code, message: error.message, span: error.span };
    throw error;
  }
  throw new Error("rendered without an error");
};

const body: Json = {
  event: { op: "INSERT", data: { new: { id: 7, name: "Ada Lovelace", tags: ["a", "b"], "user-id": "u1", "a b": 1 }, old: null } },
  items: [
    { id: 1, published: true, score: 150 },
    { id: 2, published: false, score: 20 },
  ],
};

describe("Kriti", () => {
  it("renders JSON as itself, and a whole value from a template block", () => {
    expect(render('{"a": [1, 2.5, true, null, "x"], "b": {}}')).toEqual({ a: [1, 2.5, true, null, "x"], b: {} });
    expect(render("{{ $body.event.data.new }}", { $body: body })).toEqual(
      (body as never as { event: { data: { new: Json } } }).event.data.new,
    );
  });

  it("looks up fields, indices, quoted keys and names with dashes", () => {
    const b = { $body: body };
    expect(render("{{ $body.event.data.new.tags[1] }}", b)).toBe("b");
    expect(render("{{ $body.event.data.new['a b'] }}", b)).toBe(1);
    expect(render("{{ $body.event.data.new.user-id }}", b)).toBe("u1");
    expect(render('{{ $body.event.data.new["name"] }}', b)).toBe("Ada Lovelace");
  });

  it("answers null for a missing optional lookup and replaces null with ??", () => {
    const b = { $body: body };
    expect(render("[{{ $body?.missing.deeper }}, {{ $body.items?[9] }}, {{ $nothing?.x }}]", b)).toEqual([null, null, null]);
    expect(render('{{ $body?.missing ?? "fallback" }}', b)).toBe("fallback");
    expect(render('{{ $body.event.op ?? "fallback" }}', b)).toBe("INSERT");
  });

  it("interpolates strings raw and other values as JSON", () => {
    expect(render('"id={{ $body.event.data.new.id }}&op={{ $body.event.op }}&tags={{ $body.event.data.new.tags }}"', { $body: body })).toBe(
      'id=7&op=INSERT&tags=["a","b"]',
    );
    expect(render('"a\\nb \\"q\\" \\u00e9 \\{"')).toBe('a\nb "q" é {');
  });

  it("ranges over arrays with index and value, and branches with if / elif / else", () => {
    const template = `[ {{ range i, x := $body.items }}
      {{ if x.published && (x.score > 100) }} {"id": {{ x.id }}, "at": {{ i }}}
      {{ elif x.published }} "low"
      {{ else }} null {{ end }}
    {{ end }} ]`;
    expect(render(template, { $body: body })).toEqual([[{ id: 1, at: 0 }, null]]);
    expect(render("{{ range _, x := $body.items }} {{ x.id }} {{ end }}", { $body: body })).toEqual([1, 2]);
  });

  it("compares, tests membership and calls the basic functions", () => {
    const b = { $body: body };
    expect(
      render(
        '[{{ 1 == 1.0 }}, {{ "a" != "b" }}, {{ 2 >= 3 }}, {{ "a" < 1 }}, {{ "op" in $body.event }}, {{ "b" in $body.event.data.new.tags }}]',
        b,
      ),
    ).toEqual([true, true, false, true, true, true]);
    expect(render("{{ not(true) && false }}")).toBe(true);
    expect(render('{"u": {{ toUpper("abc") }}, "t": {{ toTitle("hello wORLD") }}, "e": {{ escapeUri("a b/c?d=é") }}}')).toEqual({
      u: "ABC",
      t: "Hello World",
      e: "a%20b%2Fc%3Fd%3D%C3%A9",
    });
    expect(render('{{ concat([{"a": 1, "b": 2}, {"b": 3}]) }}')).toEqual({ a: 1, b: 3 });
    expect(render('{{ fromPairs(toPairs({"a": 1})) }}')).toEqual({ a: 1 });
    expect(render("[{{ size($body.items) }}, {{ empty([]) }}, {{ head(inverse([1, 2, 3])) }}, {{ removeNulls([1, null]) }}]", b)).toEqual([
      2,
      true,
      3,
      [1],
    ]);
  });

  it("reports Kriti's errors with their codes and positions", () => {
    expect(failure("{{ $missing }}")).toMatchObject({ code: "NameErrorCode", message: "Variable '$missing' not in scope" });
    expect(failure("{{ $body.nope }}", { $body: {} })).toMatchObject({ code: "AttributeErrorCode" });
    expect(failure("{{ $body.a.b }}", { $body: { a: 1 } })).toMatchObject({
      code: "TypeErrorCode",
      message: "Couldn't match expected type 'Object' with actual type 'Number'",
    });
    expect(failure("{{ if 1 }} 1 {{ else }} 2 {{ end }}")).toMatchObject({ code: "TypeErrorCode" });
    expect(failure("{{ range _, x := 3 }} 1 {{ end }}")).toMatchObject({ code: "TypeErrorCode" });
    expect(failure("{{ head([]) }}")).toMatchObject({ code: "FunctionErrorCode", message: "Empty array" });
    expect(failure("{{ unknownFn(1) }}")).toMatchObject({ code: "NameErrorCode" });
    expect(() => compileKriti("[true, ]")).toThrow("Unexpected token ']'.");
    expect(() => compileKriti("{ 1: null }")).toThrow("Unexpected token '1'.");
    expect(() => compileKriti('"{{ $x "')).toThrow(KritiError);
    const position = failure('{\n  "a": {{ $nope }}\n}').span;
    expect(position.start).toEqual({ line: 1, col: 10 });
  });

  it("bounds a rendering that would grow without limit, and a template nested too deeply", () => {
    const big = Array.from({ length: 2_000 }, (_, i) => i);
    const nested = "{{ range _, a := $xs }} {{ range _, b := $xs }} {{ b }} {{ end }} {{ end }}";
    expect(failure(nested, { $xs: big })).toMatchObject({ code: "LimitErrorCode" });
    expect(() => compileKriti(`${"[".repeat(500)}${"]".repeat(500)}`)).toThrow("nested too deeply");
  });
});
