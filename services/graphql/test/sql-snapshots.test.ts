/**
 * SQL snapshot cases: each `test/sql/cases/<name>.graphql` (an operation, with its role, session
 * variables and variables in `#` header lines) runs against the schema and data of `test/sql/`,
 * and every statement the engine sends, with its parameters, and the response are compared with
 * `<name>.sql` beside it. A reviewer reads there what SQL a change produces. After a deliberate
 * change, rewrite the files with `UPDATE_SQL_SNAPSHOTS=1 npx vitest run services/graphql/test/sql-snapshots.test.ts`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Compiled, compile, type Database, type Queryable, Sql } from "@platform/core";
import { beforeEach, describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { testBackends } from "./support/db.js";
import { ADMIN, asRole, useTestEngine } from "./support/engine.js";
import { layoutSql } from "./support/sql-layout.js";

const DIR = join(import.meta.dirname, "sql");
const CASES = join(DIR, "cases");
const UPDATE = process.env.UPDATE_SQL_SNAPSHOTS === "1";

interface Case {
  name: string;
  description: string[];
  query: string;
  session: Session;
  variables: Record<string, unknown> | undefined;
}

function readCase(file: string): Case {
  const text = readFileSync(join(CASES, file), "utf8");
  const header = text
    .split("\n")
    .filter((line) => line.startsWith("#"))
    .map((line) => line.slice(1).trim());
  const setting = (key: string) =>
    header
      .find((line) => line.startsWith(`${key}:`))
      ?.slice(key.length + 1)
      .trim();
  const role = setting("role");
  const session = setting("session");
  const variables = setting("variables");
  return {
    name: file.replace(/\.graphql$/, ""),
    description: header.filter((line) => !/^(role|session|variables):/.test(line)),
    query: text,
    session: role ? asRole(role, session ? JSON.parse(session) : {}) : ADMIN,
    variables: variables ? JSON.parse(variables) : undefined,
  };
}

const cases = readdirSync(CASES)
  .filter((f) => f.endsWith(".graphql"))
  .sort()
  .map(readCase);

function parameters(values: readonly unknown[]): string {
  return JSON.stringify(values, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
}

/** What the snapshot file holds: the case's header, each statement laid out with its parameters, the response. */
function render(c: Case, statements: Compiled[], response: string): string {
  const lines = c.description.map((line) => `-- ${line}`);
  lines.push(
    `-- role: ${c.session.role}${Object.keys(c.session.variables).length > 0 ? `, session: ${JSON.stringify(c.session.variables)}` : ""}`,
  );
  statements.forEach((s, i) => {
    lines.push("", `-- statement ${i + 1} of ${statements.length}`, `${layoutSql(s.text)};`);
    if (s.values.length > 0) lines.push(`-- parameters: ${parameters(s.values)}`);
  });
  lines.push(
    "",
    "-- response",
    ...JSON.stringify(JSON.parse(response), null, 2)
      .split("\n")
      .map((line) => `-- ${line}`),
  );
  return `${lines.join("\n")}\n`;
}

describe.each(testBackends)("%s", (backend) => {
  let statements: Compiled[] = [];
  const note = (statement: Sql | Compiled) => statements.push(statement instanceof Sql ? compile(statement, "postgres") : statement);
  /** The engine queries through this database, which notes each statement it sends (in transactions too). */
  const recording = (db: Database): Database => {
    const wrap = (q: Queryable): Queryable => ({
      ...q,
      query: (statement, options) => {
        note(statement);
        return q.query(statement, options);
      },
    });
    return { ...db, ...wrap(db), transaction: (work, ...rest) => db.transaction((tx) => work(wrap(tx)), ...rest) } as Database;
  };
  const metadata = () => JSON.parse(readFileSync(join(DIR, "metadata.json"), "utf8")) as Metadata;
  const suite = useTestEngine(backend, { schema: readFileSync(join(DIR, "schema.sql"), "utf8"), metadata, database: recording });

  beforeEach(async () => {
    await suite.db.exec(readFileSync(join(DIR, "seed.sql"), "utf8"));
    statements = [];
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const response = await suite.engine.execute({ query: c.query, ...(c.variables ? { variables: c.variables } : {}) }, c.session);
    expect(JSON.parse(response).errors, "the case's operation must succeed").toBeUndefined();
    const actual = render(c, statements, response);
    const file = join(CASES, `${c.name}.sql`);
    if (UPDATE && backend === testBackends[0]) writeFileSync(file, actual);
    if (!existsSync(file)) throw new Error(`${file} is missing: run with UPDATE_SQL_SNAPSHOTS=1 to write it`);
    expect(actual).toBe(readFileSync(file, "utf8"));
  });
});
