/**
 * The databases the generative test runs against: SQL, Hasura metadata, and the little that the
 * generator must know about them beyond the introspected GraphQL schema (see `Knowledge`).
 * Together the two schemas use every column type the engine maps, an enum table, a view,
 * tracked functions (a VOLATILE one as a mutation), computed fields, object and array
 * relationships (employee.manager / employee.reports refer to the same table), and select /
 * insert / update / delete permissions for the `user` role built on X-Hasura-User-Id.
 */
import type { Metadata, TableMetadata } from "../../src/engine/metadata/types.js";
import { metadataWith } from "../support/engine.js";

/** What the generator knows of one schema beyond its GraphQL types. */
export interface Knowledge {
  /**
   * Insert input fields that fill foreign key columns, per `<insert input type>.<relationship>`:
   * with the relationship given, these columns are taken from the nested row (object
   * relationship: in the same object; array relationship: in each nested row), so Hasura
   * refuses them given as well.
   */
  relationshipColumns: Record<string, { same: string[]; nested: string[] }>;
  /**
   * Input fields Hasura requires although their GraphQL type is nullable: function arguments
   * without a default ("Non default arguments cannot be omitted"), per `<fn>_args` type.
   */
  requiredInputs: Record<string, string[]>;
  /** Keys the jsonb values use, so `_has_key` and paths find something. */
  jsonKeys: string[];
}

export interface GenerativeSchema {
  name: string;
  sql: string;
  metadata: () => Metadata;
  knowledge: Knowledge;
  /** The session variables of the non-admin role. */
  user: { role: string; variables: Record<string, string> };
}

const t = (name: string) => ({ schema: "public", name });
const OWNER_FILTER = { owner_id: { _eq: "X-Hasura-User-Id" } };

/** Every scalar column type on one table, plus an enum table, a view and an owner table. */
const TYPES_SQL = `
CREATE EXTENSION IF NOT EXISTS citext;
-- The check keeps the enum's values fixed: the GraphQL enum is built once, from these rows.
CREATE TABLE status (value text PRIMARY KEY CHECK (value IN ('draft', 'published', 'archived')), comment text);
INSERT INTO status VALUES ('draft', 'Not yet visible'), ('published', 'Visible to all'), ('archived', NULL);
-- Untracked references that keep every enum row in place (its deletion or renaming fails).
CREATE TABLE status_pin (status text REFERENCES status(value));
INSERT INTO status_pin VALUES ('draft'), ('published'), ('archived');
CREATE TABLE owner (id integer PRIMARY KEY, name text NOT NULL, email citext UNIQUE);
INSERT INTO owner VALUES (1, 'Ada', 'ada@example.com'), (2, 'Alan', 'ALAN@example.com'), (3, 'Grace', NULL);
CREATE TABLE item (
  id serial PRIMARY KEY,
  code uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  owner_id integer REFERENCES owner(id),
  status text NOT NULL DEFAULT 'draft' REFERENCES status(value),
  small smallint CHECK (small IS NULL OR small > -30000),
  big bigint,
  price numeric,
  ratio real,
  score double precision,
  active boolean,
  title text,
  label varchar(40),
  nick citext,
  day date,
  at_time time,
  at_timetz timetz,
  stamp timestamp,
  stamptz timestamptz,
  doc json,
  data jsonb,
  counts integer[],
  tags text[]
);
INSERT INTO item (code, owner_id, status, small, big, price, ratio, score, active, title, label, nick, day, at_time, at_timetz, stamp, stamptz, doc, data, counts, tags) VALUES
  ('11111111-1111-4111-8111-111111111111', 1, 'published', 1, 9007199254740993, 12.50, 0.5, 1.25, true, 'alpha', 'a', 'Alpha', '2024-01-15', '10:00', '10:00+02', '2024-01-15 10:00', '2024-01-15 10:00Z',
   '{"a": 1}', '{"a": 1, "b": [1, 2], "c": {"d": "x"}}', '{1,2,3}', '{red,green}'),
  ('22222222-2222-4222-8222-222222222222', 1, 'draft', -5, -2, 0.001, -1.5, 3e10, false, 'beta', 'bb', 'BETA', '2023-12-31', '23:59:59', '23:59:59-05', '2023-12-31 23:59:59', '2023-12-31 23:59:59+05:30',
   '[1, "two"]', '[1, "two", {"a": null}]', '{}', '{}'),
  ('33333333-3333-4333-8333-333333333333', 2, 'archived', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL),
  ('44444444-4444-4444-8444-444444444444', 2, 'published', 7, 42, 100, 2.25, -0.125, true, 'gamma', 'g', 'gamma', '2000-02-29', '00:00', '00:00Z', '2000-02-29 00:00', '2000-02-29 00:00Z',
   '"s"', '"s"', '{5}', '{blue}'),
  ('55555555-5555-4555-8555-555555555555', NULL, 'draft', 3, 3, 3, 3, 3, true, 'delta', 'd', 'DELTA', '1999-01-01', '12:30', '12:30+01', '1999-01-01 12:30', '1999-01-01 12:30Z',
   '{"b": [1, 2]}', '{"b": [3], "a": "x"}', '{1,null}', '{x,null}');
CREATE INDEX ON item (owner_id);
-- Read-only (not auto-updatable): arrays holding NULL elements stay there whatever mutations run.
CREATE VIEW array_sample AS SELECT 1 AS id, ARRAY['x', NULL]::text[] AS tags, ARRAY[1, NULL]::integer[] AS counts;
CREATE VIEW item_view AS SELECT id, owner_id, title, price, data, tags FROM item;
`;

function typesMetadata(): Metadata {
  const item: TableMetadata = {
    table: t("item"),
    object_relationships: [
      { name: "owner", using: { foreign_key_constraint_on: "owner_id" } },
      { name: "status_info", using: { foreign_key_constraint_on: "status" } },
    ],
    select_permissions: [
      {
        role: "user",
        permission: { columns: "*", filter: { _or: [OWNER_FILTER, { status: { _eq: "published" } }] }, allow_aggregations: true },
      },
    ],
    insert_permissions: [
      {
        role: "user",
        permission: {
          check: OWNER_FILTER,
          set: { owner_id: "X-Hasura-User-Id" },
          columns: ["status", "small", "big", "price", "ratio", "score", "active", "title", "label", "nick", "day", "at_time"].concat([
            "at_timetz",
            "stamp",
            "stamptz",
            "doc",
            "data",
            "counts",
            "tags",
            "code",
          ]),
        },
      },
    ],
    update_permissions: [
      {
        role: "user",
        permission: {
          columns: [
            "status",
            "small",
            "big",
            "price",
            "ratio",
            "score",
            "active",
            "title",
            "label",
            "nick",
            "day",
            "stamptz",
            "data",
            "tags",
          ],
          filter: OWNER_FILTER,
          check: { small: { _gt: -1000 } },
        },
      },
    ],
    delete_permissions: [{ role: "user", permission: { filter: { _and: [OWNER_FILTER, { status: { _neq: "published" } }] } } }],
  };
  return metadataWith([
    { table: t("status"), is_enum: true, select_permissions: [{ role: "user", permission: { columns: "*", filter: {} } }] },
    {
      table: t("owner"),
      array_relationships: [{ name: "items", using: { foreign_key_constraint_on: { table: t("item"), column: "owner_id" } } }],
      select_permissions: [{ role: "user", permission: { columns: ["id", "name"], filter: {} } }],
      insert_permissions: [{ role: "user", permission: { check: { id: { _eq: "X-Hasura-User-Id" } }, columns: ["id", "name"] } }],
    },
    item,
    { table: t("array_sample"), select_permissions: [{ role: "user", permission: { columns: "*", filter: {} } }] },
    {
      table: t("item_view"),
      object_relationships: [
        { name: "owner", using: { manual_configuration: { remote_table: t("owner"), column_mapping: { owner_id: "id" } } } },
      ],
      select_permissions: [{ role: "user", permission: { columns: ["id", "title", "price", "tags"], filter: OWNER_FILTER, limit: 3 } }],
      update_permissions: [{ role: "user", permission: { columns: ["title"], filter: OWNER_FILTER } }],
    },
  ]);
}

/** Relationships (a self-referencing one), functions, computed fields. */
const ORG_SQL = `
CREATE TABLE department (id serial PRIMARY KEY, name text NOT NULL UNIQUE, budget numeric);
INSERT INTO department (name, budget) VALUES ('Research', 1000000), ('Sales', 250000.5), ('Empty', NULL);
CREATE TABLE employee (
  id serial PRIMARY KEY,
  name text NOT NULL,
  department_id integer REFERENCES department(id),
  manager_id integer REFERENCES employee(id),
  user_id integer,
  salary bigint,
  hired date,
  active boolean NOT NULL DEFAULT true,
  skills text[],
  profile jsonb,
  UNIQUE (department_id, name)
);
CREATE INDEX ON employee (manager_id);
CREATE INDEX ON employee (user_id);
INSERT INTO employee (name, department_id, manager_id, user_id, salary, hired, active, skills, profile) VALUES
  ('Ada', 1, NULL, 1, 200000, '2020-01-01', true, '{math,engines}', '{"a": {"level": 3}}'),
  ('Alan', 1, 1, 2, 150000, '2021-06-30', true, '{logic}', '{"b": [1, 2]}'),
  ('Grace', 2, 1, 3, 175000, '2019-03-15', false, '{}', '[]'),
  ('Edsger', 2, 3, 2, NULL, NULL, true, NULL, NULL),
  ('Barbara', NULL, 2, 1, 99999, '2022-11-11', true, '{lists,math}', '{"a": 1}');
CREATE TABLE project (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title varchar(60) NOT NULL,
  lead_id integer REFERENCES employee(id),
  started timestamptz,
  budget numeric
);
CREATE INDEX ON project (lead_id);
INSERT INTO project (id, title, lead_id, started, budget) VALUES
  ('aaaaaaaa-0000-4000-8000-000000000001', 'Engine', 1, '2024-05-01 09:00Z', 5000),
  ('aaaaaaaa-0000-4000-8000-000000000002', 'Compiler', 3, NULL, 12.5);
-- A composite primary key, and a table outside the public schema (GraphQL names hr_badge...).
CREATE TABLE employee_skill (
  employee_id integer NOT NULL REFERENCES employee(id),
  skill text NOT NULL,
  level smallint NOT NULL DEFAULT 1,
  PRIMARY KEY (employee_id, skill)
);
-- (3, 'lists'): the user role may read this row but not employee 3 (inactive, someone else's).
INSERT INTO employee_skill VALUES (1, 'math', 5), (1, 'engines', 3), (2, 'logic', 4), (5, 'math', 2), (3, 'lists', 1);
CREATE SCHEMA hr;
CREATE TABLE hr.badge (
  id serial PRIMARY KEY,
  employee_id integer REFERENCES employee(id),
  code uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  issued timestamptz NOT NULL DEFAULT '2024-01-01 00:00Z'
);
CREATE INDEX ON hr.badge (employee_id);
INSERT INTO hr.badge (employee_id) VALUES (1), (2), (2), (NULL);
CREATE FUNCTION search_employees(query text) RETURNS SETOF employee AS $$
  SELECT * FROM employee WHERE name ILIKE '%' || coalesce(query, '') || '%'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION employees_earning(min_salary bigint DEFAULT 0, dept integer DEFAULT NULL) RETURNS SETOF employee AS $$
  SELECT * FROM employee WHERE coalesce(salary, 0) >= coalesce(min_salary, 0) AND (dept IS NULL OR department_id = dept)
$$ LANGUAGE sql STABLE;
CREATE FUNCTION my_team(hasura_session json) RETURNS SETOF employee AS $$
  SELECT * FROM employee WHERE user_id::text = hasura_session ->> 'x-hasura-user-id'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION give_raise(employee_id integer, amount integer) RETURNS SETOF employee AS $$
  UPDATE employee SET salary = coalesce(salary, 0) + coalesce(amount, 0) % 1000 WHERE id = employee_id RETURNING *
$$ LANGUAGE sql VOLATILE;
CREATE FUNCTION employee_label(e employee) RETURNS text AS $$
  SELECT e.name || ' #' || e.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION employee_peers(e employee) RETURNS SETOF employee AS $$
  SELECT * FROM employee WHERE manager_id = e.manager_id AND id <> e.id
$$ LANGUAGE sql STABLE;
CREATE FUNCTION employee_salary_in(e employee, rate numeric DEFAULT 1) RETURNS numeric AS $$
  SELECT e.salary * coalesce(rate, 1)
$$ LANGUAGE sql STABLE;
CREATE FUNCTION department_headcount(d department) RETURNS bigint AS $$
  SELECT count(*) FROM employee WHERE department_id = d.id
$$ LANGUAGE sql STABLE;
`;

function orgMetadata(): Metadata {
  const USER_FILTER = { user_id: { _eq: "X-Hasura-User-Id" } };
  return metadataWith(
    [
      {
        table: t("department"),
        array_relationships: [
          { name: "employees", using: { foreign_key_constraint_on: { table: t("employee"), column: "department_id" } } },
        ],
        computed_fields: [{ name: "headcount", definition: { function: t("department_headcount") } }],
        select_permissions: [
          { role: "user", permission: { columns: "*", filter: {}, allow_aggregations: true, computed_fields: ["headcount"] } },
        ],
      },
      {
        table: t("employee"),
        object_relationships: [
          { name: "department", using: { foreign_key_constraint_on: "department_id" } },
          { name: "manager", using: { foreign_key_constraint_on: "manager_id" } },
        ],
        array_relationships: [
          { name: "reports", using: { foreign_key_constraint_on: { table: t("employee"), column: "manager_id" } } },
          { name: "projects", using: { foreign_key_constraint_on: { table: t("project"), column: "lead_id" } } },
          { name: "skill_levels", using: { foreign_key_constraint_on: { table: t("employee_skill"), column: "employee_id" } } },
          {
            name: "badges",
            using: { foreign_key_constraint_on: { table: { schema: "hr", name: "badge" }, column: "employee_id" } },
          },
        ],
        computed_fields: [
          { name: "label", definition: { function: t("employee_label") } },
          { name: "peers", definition: { function: t("employee_peers") } },
          { name: "salary_in", definition: { function: t("employee_salary_in"), table_argument: "e" } },
        ],
        select_permissions: [
          {
            role: "user",
            permission: {
              columns: ["id", "name", "department_id", "manager_id", "user_id", "salary", "hired", "active", "skills", "profile"],
              computed_fields: ["label", "salary_in"],
              filter: { _or: [USER_FILTER, { manager: USER_FILTER }, { active: { _eq: true } }] },
              allow_aggregations: true,
            },
          },
        ],
        insert_permissions: [
          {
            role: "user",
            permission: {
              check: { _or: [USER_FILTER, { department_id: { _is_null: true } }] },
              set: { user_id: "X-Hasura-User-Id" },
              columns: ["id", "name", "department_id", "manager_id", "salary", "hired", "active", "skills", "profile"],
            },
          },
        ],
        update_permissions: [
          {
            role: "user",
            permission: {
              columns: ["name", "salary", "hired", "active", "skills", "profile", "manager_id"],
              filter: USER_FILTER,
              check: USER_FILTER,
            },
          },
        ],
        delete_permissions: [{ role: "user", permission: { filter: { _and: [USER_FILTER, { reports: {} }] } } }],
      },
      {
        table: t("employee_skill"),
        object_relationships: [{ name: "employee", using: { foreign_key_constraint_on: "employee_id" } }],
        select_permissions: [{ role: "user", permission: { columns: "*", filter: {}, allow_aggregations: true } }],
        insert_permissions: [{ role: "user", permission: { check: { employee: USER_FILTER }, columns: "*" } }],
        update_permissions: [{ role: "user", permission: { columns: ["level"], filter: { employee: USER_FILTER } } }],
        delete_permissions: [{ role: "user", permission: { filter: { employee: USER_FILTER } } }],
      },
      {
        table: { schema: "hr", name: "badge" },
        object_relationships: [{ name: "employee", using: { foreign_key_constraint_on: "employee_id" } }],
        select_permissions: [{ role: "user", permission: { columns: ["id", "employee_id", "issued"], filter: { employee: USER_FILTER } } }],
      },
      {
        // Custom type, root field and column names: every code path must map them back.
        table: t("project"),
        configuration: {
          custom_name: "Project",
          custom_root_fields: { select: "projects", select_by_pk: "project", insert_one: "addProject" },
          column_config: { lead_id: { custom_name: "leadId" }, started: { custom_name: "startedAt" } },
        },
        object_relationships: [{ name: "lead", using: { foreign_key_constraint_on: "lead_id" } }],
        select_permissions: [
          { role: "user", permission: { columns: ["id", "title", "lead_id", "started"], filter: { lead: USER_FILTER } } },
        ],
        insert_permissions: [{ role: "user", permission: { check: { lead: USER_FILTER }, columns: ["title", "lead_id", "started"] } }],
      },
    ],
    [
      { function: t("search_employees") },
      { function: t("employees_earning") },
      { function: t("my_team"), configuration: { session_argument: "hasura_session" } },
      { function: t("give_raise"), permissions: [{ role: "user" }] },
    ],
  );
}

export const SCHEMAS: GenerativeSchema[] = [
  {
    name: "types",
    sql: TYPES_SQL,
    metadata: typesMetadata,
    knowledge: {
      relationshipColumns: {
        "item_insert_input.owner": { same: ["owner_id"], nested: [] },
        "item_insert_input.status_info": { same: ["status"], nested: [] },
        "owner_insert_input.items": { same: [], nested: ["owner_id"] },
        "item_view_insert_input.owner": { same: ["owner_id"], nested: [] },
      },
      requiredInputs: {},
      jsonKeys: ["a", "b", "c", "d"],
    },
    user: { role: "user", variables: { "x-hasura-user-id": "1" } },
  },
  {
    name: "org",
    sql: ORG_SQL,
    metadata: orgMetadata,
    knowledge: {
      relationshipColumns: {
        "employee_insert_input.department": { same: ["department_id"], nested: [] },
        "employee_insert_input.manager": { same: ["manager_id"], nested: [] },
        "employee_insert_input.reports": { same: [], nested: ["manager_id"] },
        "employee_insert_input.projects": { same: [], nested: ["leadId"] },
        "employee_insert_input.skill_levels": { same: [], nested: ["employee_id"] },
        "employee_insert_input.badges": { same: [], nested: ["employee_id"] },
        "employee_skill_insert_input.employee": { same: ["employee_id"], nested: [] },
        "hr_badge_insert_input.employee": { same: ["employee_id"], nested: [] },
        "department_insert_input.employees": { same: [], nested: ["department_id"] },
        "Project_insert_input.lead": { same: ["leadId"], nested: [] },
      },
      requiredInputs: { search_employees_args: ["query"], give_raise_args: ["employee_id", "amount"] },
      jsonKeys: ["a", "b", "level"],
    },
    user: { role: "user", variables: { "x-hasura-user-id": "2" } },
  },
];
