import { describe, expect, it } from "vitest";
import { and, compile, empty, ident, join, list, sql } from "../src/sql.js";

describe("sql fragments", () => {
  it("binds interpolated values as numbered placeholders for postgres", () => {
    const fragment = sql`SELECT * FROM t WHERE a = ${1} AND b = ${"x"}`;
    expect(compile(fragment, "postgres")).toEqual({ text: "SELECT * FROM t WHERE a = $1 AND b = $2", values: [1, "x"] });
  });

  it("binds interpolated values as question marks for sqlite", () => {
    const fragment = sql`SELECT * FROM t WHERE a = ${1} AND b = ${"x"}`;
    expect(compile(fragment, "sqlite")).toEqual({ text: "SELECT * FROM t WHERE a = ? AND b = ?", values: [1, "x"] });
  });

  it("inlines nested fragments and numbers their values in order", () => {
    const where = sql`a = ${1} AND ${sql`b = ${2}`}`;
    const fragment = sql`SELECT ${3} AS c FROM t WHERE ${where} LIMIT ${4}`;
    expect(compile(fragment, "postgres")).toEqual({ text: "SELECT $1 AS c FROM t WHERE a = $2 AND b = $3 LIMIT $4", values: [3, 1, 2, 4] });
    expect(compile(fragment, "sqlite").text).toBe("SELECT ? AS c FROM t WHERE a = ? AND b = ? LIMIT ?");
  });

  it("never splices values into the text, whatever they contain", () => {
    const hostile = [`'; DROP TABLE users; --`, `"quoted"`, "$1", "?", null, undefined, ["a", "b"], { k: 1 }, 10n];
    const fragment = sql`SELECT ${join(hostile.map((v) => sql`${v}`))}`;
    for (const dialect of ["postgres", "sqlite"] as const) {
      const { text, values } = compile(fragment, dialect);
      expect(values).toEqual(hostile);
      expect(text).not.toMatch(/DROP|quoted|\{|\[/);
    }
    expect(compile(fragment, "postgres").text).toBe("SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9");
  });

  it("quotes identifiers, escapes embedded quotes and qualifies with a schema", () => {
    const fragment = sql`SELECT ${ident("col")} FROM ${ident("my schema", 'we"ird')}`;
    expect(compile(fragment, "postgres")).toEqual({ text: 'SELECT "col" FROM "my schema"."we""ird"', values: [] });
    expect(compile(sql`${ident('"; DROP TABLE x; --')}`, "sqlite").text).toBe('"""; DROP TABLE x; --"');
    expect(() => ident()).toThrow(TypeError);
  });

  it("joins fragments with a default or given separator", () => {
    const parts = [sql`a = ${1}`, sql`b = ${2}`, sql`${ident("c")} = ${3}`];
    expect(compile(join(parts), "postgres")).toEqual({ text: 'a = $1, b = $2, "c" = $3', values: [1, 2, 3] });
    expect(compile(join(parts, sql` OR `), "sqlite")).toEqual({ text: 'a = ? OR b = ? OR "c" = ?', values: [1, 2, 3] });
    expect(compile(join([]), "postgres")).toEqual({ text: "", values: [] });
  });

  it("combines conditions with AND, skipping empty ones", () => {
    const fragment = and([sql`a = ${1}`, empty, sql`  `, sql`b = ${2} OR c = ${3}`]);
    expect(compile(fragment, "postgres")).toEqual({ text: "(a = $1) AND (b = $2 OR c = $3)", values: [1, 2, 3] });
    expect(compile(and([]), "postgres")).toEqual({ text: "1 = 1", values: [] });
    expect(compile(and([empty]), "sqlite").text).toBe("1 = 1");
  });

  it("renders a parenthesised list of bound values and refuses an empty one", () => {
    expect(compile(sql`x IN ${list(["a", "b", "c"])}`, "postgres")).toEqual({ text: "x IN ($1, $2, $3)", values: ["a", "b", "c"] });
    expect(compile(sql`x IN ${list([7])} AND y = ${8}`, "sqlite")).toEqual({ text: "x IN (?) AND y = ?", values: [7, 8] });
    expect(() => list([])).toThrow(TypeError);
  });

  it("reports whether a fragment renders any text", () => {
    expect(empty.isEmpty).toBe(true);
    expect(sql` `.isEmpty).toBe(true);
    expect(sql`${1}`.isEmpty).toBe(false);
    expect(sql`${ident("a")}`.isEmpty).toBe(false);
  });

  it("can be compiled repeatedly with the same result", () => {
    const fragment = sql`a = ${1}`;
    const first = compile(fragment, "postgres");
    expect(compile(fragment, "postgres")).toEqual(first);
  });
});
