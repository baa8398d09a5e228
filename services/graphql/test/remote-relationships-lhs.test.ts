/**
 * What a remote relationship joins on and what its field looks like, as Hasura builds them
 * (https://hasura.io/docs/2.0/remote-schemas/remote-relationships/remote-schema-relationships/):
 * scalar computed fields as join fields (without and with a session argument, as
 * server/tests-py TestComputedFieldsInRemoteRelationship does), refused when they take
 * arguments, seen by the roles that may read them; and the field's open arguments by name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

const SDL = `
  input Where { id: Int name: String }
  input Include { id: [Int] }
  type Query {
    getGrade(marks: Int!): String
    grades(where: Where, includes: Include, atLeast: Int): [String]
  }
`;

const grade = (marks: number) => (marks > 90 ? "S" : marks > 80 ? "A" : "B");

describe.each(testBackends)("remote relationships joining on computed fields [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  let remote: GraphqlServer;
  const run = (query: string, headers: Record<string, string> = ADMIN_HEADERS) =>
    graphql(service, { query }, headers).then((r) => r.body as Record<string, unknown>);
  const metadata = (body: unknown) => admin(service, "/v1/metadata", body);
  const createRel = (name: string, lhs: string, remoteField: Record<string, unknown>) =>
    metadata({
      type: "pg_create_remote_relationship",
      args: {
        table: "students",
        name,
        definition: { to_remote_schema: { remote_schema: "grades", lhs_fields: [lhs], remote_field: remoteField } },
      },
    });

  beforeAll(async () => {
    remote = await startGraphqlServer();
    remote.route("/grades", {
      schema: schemaOf(SDL),
      root: { getGrade: ({ marks }: { marks: number }) => grade(marks), grades: () => [] },
    });
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { REMOTE_BASE: remote.url });
    const sqlDone = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: `CREATE TABLE students (id int PRIMARY KEY, name text NOT NULL, physics int, maths int);
              INSERT INTO students VALUES (1, 'alice', 45, 48), (2, 'bob', 32, 40);
              CREATE FUNCTION total_marks(s students) RETURNS int AS $$ SELECT s.physics + s.maths $$ LANGUAGE sql STABLE;
              CREATE FUNCTION total_marks_session(s students, hasura_session json) RETURNS int AS $$
                SELECT s.physics + s.maths - (hasura_session ->> 'x-hasura-offset')::int $$ LANGUAGE sql STABLE;
              CREATE FUNCTION total_marks_offset(s students, "offset" int) RETURNS int AS $$
                SELECT s.physics + s.maths - "offset" $$ LANGUAGE sql STABLE;`,
      },
    });
    expect(sqlDone.status, JSON.stringify(sqlDone.body)).toBe(200);
    const setup = await metadata({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "students" } },
        ...["total_marks", "total_marks_offset"].map((name) => ({
          type: "pg_add_computed_field",
          args: { table: "students", name, definition: { function: name, table_argument: "s" } },
        })),
        {
          type: "pg_add_computed_field",
          args: {
            table: "students",
            name: "total_marks_session",
            definition: { function: "total_marks_session", table_argument: "s", session_argument: "hasura_session" },
          },
        },
        { type: "add_remote_schema", args: { name: "grades", definition: { url: "{{REMOTE_BASE}}/grades" } } },
        {
          type: "pg_create_select_permission",
          args: { table: "students", role: "teacher", permission: { columns: ["id"], computed_fields: ["total_marks"], filter: {} } },
        },
        { type: "pg_create_select_permission", args: { table: "students", role: "pupil", permission: { columns: ["id"], filter: {} } } },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
    await remote?.close();
  });

  it("joins on a scalar computed field", async () => {
    const created = await createRel("grade", "total_marks", { getGrade: { arguments: { marks: "$total_marks" } } });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    expect(await run("{ students(order_by: {id: asc}) { id name grade } }")).toEqual({
      data: {
        students: [
          { id: 1, name: "alice", grade: "S" },
          { id: 2, name: "bob", grade: "B" },
        ],
      },
    });
  });

  it("joins on a computed field that reads the session", async () => {
    const created = await createRel("grade_session", "total_marks_session", {
      getGrade: { arguments: { marks: "$total_marks_session" } },
    });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    expect(await run("{ students(order_by: {id: asc}) { grade_session } }", { ...ADMIN_HEADERS, "x-hasura-offset": "10" })).toEqual({
      data: { students: [{ grade_session: "A" }, { grade_session: "B" }] },
    });
  });

  it("refuses a computed field that takes arguments, naming the fields it may join on", async () => {
    const refused = await createRel("grade_offset", "total_marks_offset", { getGrade: { arguments: { marks: "$total_marks_offset" } } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "invalid-configuration" });
    const error = String((refused.body as { error: string }).error);
    expect(error).toContain('field with name "total_marks_offset"is not provided by the lhs entity"students"for defining a join condition');
    expect(error).toContain('"total_marks"');
    expect(error).toContain('"total_marks_session"');
  });

  it("shows the relationship to the roles that may read the computed field", async () => {
    expect(await run("{ students(order_by: {id: asc}) { grade } }", { ...ADMIN_HEADERS, "x-hasura-role": "teacher" })).toEqual({
      data: { students: [{ grade: "S" }, { grade: "B" }] },
    });
    const refused = await run("{ students { grade } }", { ...ADMIN_HEADERS, "x-hasura-role": "pupil" });
    expect(refused).toMatchObject({ errors: [{ extensions: { code: "validation-failed" } }] });
  });

  it("keeps a computed field a relationship joins on: drop_computed_field is refused, or cascades to it", async () => {
    const drop = (cascade: boolean) =>
      metadata({ type: "pg_drop_computed_field", args: { table: "students", name: "total_marks_session", cascade } });
    const refused = await drop(false);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "dependency-error",
      error: 'cannot drop due to the following dependent objects: remote relationship students.grade_session in source "default"',
    });
    expect(await drop(true)).toEqual({ status: 200, body: { message: "success" } });
    const refusedField = await run("{ students { grade_session } }");
    expect(refusedField).toMatchObject({ errors: [{ extensions: { code: "validation-failed" } }] });
  });

  it("keeps a computed field's function a relationship joins on: run_sql DROP FUNCTION is refused, or cascades", async () => {
    const drop = (cascade: boolean) =>
      admin(service, "/v2/query", { type: "run_sql", args: { sql: "DROP FUNCTION total_marks(students)", cascade } });
    const refused = await drop(false);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: "dependency-error",
      error: expect.stringContaining('remote relationship students.grade in source "default"'),
    });
    expect((await drop(true)).status).toBe(200);
    expect(await run("{ students(order_by: {id: asc}) { id } }")).toEqual({ data: { students: [{ id: 1 }, { id: 2 }] } });
    expect((await metadata({ type: "get_inconsistent_metadata", args: {} })).body).toMatchObject({ is_consistent: true });
  });

  it("lists the relationship field's open arguments by name, as Hasura's schema does", async () => {
    const created = await createRel("filtered", "id", { grades: { arguments: { atLeast: "$id", where: { id: 1 } } } });
    expect(created).toEqual({ status: 200, body: { message: "success" } });
    const type = await run('{ __type(name: "students") { fields { name args { name type { name } } } } }');
    const fields = (type.data as { __type: { fields: Array<{ name: string; args: unknown[] }> } }).__type.fields;
    expect(fields.find((f) => f.name === "filtered")?.args).toEqual([
      { name: "includes", type: { name: "Include" } },
      { name: "where", type: { name: "Where_remote_rel_studentsfiltered" } },
    ]);
  });
});
