/**
 * Metadata the engine keeps but does not serve yet (remote schema permissions, remote
 * relationships, event triggers, cron triggers, inherited roles, REST endpoints; query
 * collections and the allow list kept unreported): stored through replace_metadata and through
 * Hasura's commands, exported unchanged, reported by get_inconsistent_metadata in Hasura's
 * shape, on a real database through the runtime's admin API. The remote schema they name is
 * served by a real graphql-js server (remote-schemas.test.ts covers remote schemas themselves).
 */

import { createLogger } from "@platform/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { HasuraError } from "../src/engine/errors/index.js";
import { reportedAction, reportedCustomTypes } from "../src/engine/metadata/custom-types.js";
import { INCONSISTENT_OBJECT_LOG } from "../src/engine/metadata/inconsistency-log.js";
import type { Metadata } from "../src/engine/metadata/types.js";
import type { Session } from "../src/engine/request/session.js";
import { GraphqlRuntime } from "../src/runtime.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { type GraphqlServer, schemaOf, startGraphqlServer } from "./support/graphql-server.js";

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id));
INSERT INTO author (name) VALUES ('Ada');
`;

const admin: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
const notServed = (what: string) => `Inconsistent object: ${what} are not supported by this engine yet; kept in metadata but not served`;
const ARTICLE = { schema: "public", name: "article" };

const ACTION = {
  name: "addUser",
  // Actions whose types resolve are served (actions.test.ts, actions-async.test.ts), so not reported.
  definition: { kind: "asynchronous", handler: "https://example.test/add", type: "mutation", arguments: [], output_type: "UserOut" },
  permissions: [{ role: "user" }],
};
const CUSTOM_TYPES = { objects: [{ name: "UserOut", fields: [{ name: "id", type: "Int!" }] }] };
/** Served (its url set once the remote server listens), so not reported; its permissions and relationships are. */
const REMOTE_SCHEMA = { name: "countries", definition: { url: "", timeout_seconds: 60 }, comment: "c" };
/** Cron triggers are served with their transforms, but not with a transform of a shape Hasura refuses (kept by replace_metadata). */
const CRON = {
  name: "nightly",
  webhook: "https://example.test/cron",
  schedule: "0 0 * * *",
  include_in_metadata: true,
  request_transform: { version: 3, template_engine: "Kriti", body: { action: "transform", template: "{{$body.payload}}" } },
};
const CRON_REASON = "Inconsistent object: invalid transform: expected 1 or 2, encountered 3 at $.request_transform.version";
/** A cron trigger with a transform that the commands accept and the engine serves. */
const SERVED_CRON = { ...CRON, request_transform: { ...CRON.request_transform, version: 2 } };
const REMOTE_REL = {
  name: "country",
  definition: { to_remote_schema: { remote_schema: "countries", lhs_fields: ["title"], remote_field: { country: { arguments: {} } } } },
};
/** A relationship to another database's table: not served, so reported (relationships to remote schemas are served). */
const SOURCE_REL = {
  name: "writer",
  definition: { to_source: { source: "default", table: "author", relationship_type: "object", field_mapping: { author_id: "id" } } },
};
const EVENT_TRIGGER = {
  name: "article_created",
  definition: { enable_manual: false, insert: { columns: "*" } },
  retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
  webhook: "https://example.test/events",
};
/** Event triggers are served with their transforms, but not with a transform of a shape Hasura refuses. */
const TRANSFORMED_TRIGGER = {
  ...EVENT_TRIGGER,
  name: "article_transformed",
  request_transform: { version: 2, template_engine: "Kriti", body: { action: "rewrite", template: "{{$body.event}}" } },
};
const INHERITED = { role_name: "manager", role_set: ["user", "editor"] };
const ENDPOINT = {
  name: "articles",
  url: "articles",
  methods: ["GET"],
  definition: { query: { collection_name: "allowed-queries", query_name: "articles" } },
};
/** Kept and exported, but not reported. */
const QUIET = {
  query_collections: [
    { name: "allowed-queries", definition: { queries: [{ name: "articles", query: "query articles { article { id } }" }] } },
  ],
  allowlist: [{ collection: "allowed-queries", scope: { global: true } }],
  network: { tls_allowlist: [{ host: "example.test" }] },
  graphql_schema_introspection: { disabled_for_roles: ["user"] },
  metrics_config: { analyze_query_variables: true },
  opentelemetry: { status: "disabled" },
  backend_configs: { dataconnector: {} },
};

/** How get_inconsistent_metadata reports each of the objects above. */
const REPORTED = [
  { definition: CRON, name: "cron_trigger nightly", reason: CRON_REASON, type: "cron_trigger" },
  {
    definition: INHERITED,
    name: "inherited_role inherited role manager",
    reason: notServed("inherited roles"),
    type: "inherited_role",
  },
  { definition: ENDPOINT, name: "rest_endpoint articles", reason: notServed("REST endpoints"), type: "rest_endpoint" },
  {
    definition: { definition: SOURCE_REL.definition, source: "default", table: ARTICLE, name: "writer" },
    name: "remote_relationship writer in table article in source default",
    reason: notServed("remote relationships"),
    type: "remote_relationship",
  },
  {
    definition: { table: ARTICLE, configuration: TRANSFORMED_TRIGGER },
    name: "event_trigger article_transformed in table article in source default",
    reason: "Inconsistent object: invalid transform: invalid transform action at $.request_transform.body.action",
    type: "event_trigger",
  },
];

describe.each(testBackends)("metadata kept but not served, on %s", (backend) => {
  let handle: TestDatabase;
  let runtime: GraphqlRuntime;
  let warn: { mock: { calls: unknown[][] }; mockClear(): void };
  const call = (body: unknown, endpoint: "/v1/metadata" | "/v1/query" | "/v2/query" = "/v1/metadata") => runtime.admin(endpoint, body);
  /** The HasuraError a request that must fail is answered with. */
  const rejection = async (body: unknown, endpoint: "/v1/metadata" | "/v1/query" = "/v1/metadata") => {
    const error = await call(body, endpoint).then(
      () => {
        throw new Error("request did not fail");
      },
      (e: unknown) => e,
    );
    if (!(error instanceof HasuraError)) throw error;
    return error;
  };
  const fail = async (body: unknown, endpoint: "/v1/metadata" | "/v1/query" = "/v1/metadata") => {
    const error = await rejection(body, endpoint);
    return { code: error.hasuraCode, error: error.message, path: error.path, status: error.status };
  };
  const exported = async () => (await call({ type: "export_metadata", args: {} })) as Metadata;
  const inconsistent = async () =>
    (await call({ type: "get_inconsistent_metadata", args: {} })) as { is_consistent: boolean; inconsistent_objects?: unknown[] };
  const reportedNames = async () => ((await inconsistent()).inconsistent_objects ?? []).map((o) => (o as { name: string }).name);
  const articleTable = async () =>
    (await exported()).sources[0]?.tables.find((t) => t.table.name === "article") as unknown as Record<string, unknown>;

  let countries: GraphqlServer;

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    countries = await startGraphqlServer();
    countries.route("/countries", { schema: schemaOf("type Query { country(code: String): String }"), root: { country: () => "FR" } });
    REMOTE_SCHEMA.definition.url = `${countries.url}/countries`;
  });
  afterAll(async () => {
    await handle.dispose();
    await countries.close();
  });
  beforeEach(async () => {
    await handle.db.exec("DROP SCHEMA IF EXISTS hdb_catalog CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
    const logger = createLogger({ level: "silent" });
    warn = vi.spyOn(logger, "warn");
    runtime = new GraphqlRuntime(handle.db, { booleanNullCollapse: false, env: { COUNTRIES_URL: `${countries.url}/countries` } }, logger);
    await runtime.init();
    await call({ type: "run_sql", args: { sql: SCHEMA } }, "/v2/query");
    await call({
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { table: "author" } },
        { type: "pg_track_table", args: { table: "article" } },
        { type: "pg_create_select_permission", args: { table: "author", role: "user", permission: { columns: "*", filter: {} } } },
      ],
    });
  });

  /** The current metadata with every unserved kind (and the quiet keys) added. */
  async function fullMetadata(): Promise<Metadata> {
    const current = await exported();
    const source = current.sources[0] as Metadata["sources"][number];
    const tables = source.tables.map((t) =>
      t.table.name === "article" ? { ...t, remote_relationships: [REMOTE_REL, SOURCE_REL], event_triggers: [TRANSFORMED_TRIGGER] } : t,
    );
    return {
      ...current,
      sources: [{ ...source, tables }],
      actions: [ACTION],
      custom_types: CUSTOM_TYPES,
      remote_schemas: [REMOTE_SCHEMA],
      cron_triggers: [CRON],
      inherited_roles: [INHERITED],
      rest_endpoints: [ENDPOINT],
      ...QUIET,
    };
  }

  describe("replace_metadata and export_metadata", () => {
    it("keep every unserved kind unchanged and report each one as Hasura does", async () => {
      const metadata = await fullMetadata();
      expect(await call({ type: "replace_metadata", args: metadata })).toEqual({ message: "success" });
      expect(await exported()).toEqual(metadata);
      expect(await inconsistent()).toEqual({ is_consistent: false, inconsistent_objects: REPORTED });
      expect(await call({ type: "reload_metadata", args: {} })).toEqual({
        message: "success",
        is_consistent: false,
        inconsistent_objects: REPORTED,
      });
      // What is served stays served.
      expect(JSON.parse((await runtime.execute({ query: "{ author { name } }" }, admin)).body)).toEqual({
        data: { author: [{ name: "Ada" }] },
      });
    });

    it("never refuse the metadata for them, allow_inconsistent_metadata or not; a served inconsistency still does", async () => {
      const metadata = await fullMetadata();
      expect(await call({ type: "replace_metadata", args: { metadata, allow_inconsistent_metadata: false } })).toEqual({
        is_consistent: false,
        inconsistent_objects: REPORTED,
      });
      const source = metadata.sources[0] as Metadata["sources"][number];
      const ghost = { ...metadata, sources: [{ ...source, tables: [...source.tables, { table: { schema: "public", name: "ghost" } }] }] };
      expect(await fail({ type: "replace_metadata", args: ghost })).toMatchObject({
        code: "unexpected",
        error: "cannot continue due to inconsistent metadata",
        status: 400,
      });
      const allowed = (await call({ type: "replace_metadata", args: { metadata: ghost, allow_inconsistent_metadata: true } })) as {
        inconsistent_objects: { name: string }[];
      };
      expect(allowed.inconsistent_objects.map((o) => o.name)).toEqual(["table ghost in source default", ...REPORTED.map((o) => o.name)]);
    });

    it("drop_inconsistent_metadata drops them and keeps the quiet keys", async () => {
      const metadata = await fullMetadata();
      await call({ type: "replace_metadata", args: metadata });
      await call({ type: "drop_inconsistent_metadata", args: {} });
      expect(await inconsistent()).toEqual({ is_consistent: true });
      const after = await exported();
      for (const key of ["cron_triggers", "inherited_roles", "rest_endpoints"]) {
        expect(after).not.toHaveProperty(key);
      }
      // The remote schema is served: it stays.
      expect(after.remote_schemas).toEqual([REMOTE_SCHEMA]);
      // Served actions and valid custom types stay.
      expect(after.custom_types).toEqual(CUSTOM_TYPES);
      expect(after.actions).toEqual([ACTION]);
      // The relationship to the served remote schema resolves: it stays.
      expect(await articleTable()).toEqual({ table: ARTICLE, remote_relationships: [REMOTE_REL] });
      expect(after).toMatchObject(QUIET);
    });

    it("log each object a change brings in, once", async () => {
      warn.mockClear();
      await call({ type: "replace_metadata", args: await fullMetadata() });
      const logged = () => warn.mock.calls.filter((c) => c[1] === INCONSISTENT_OBJECT_LOG).map((c) => c[0]);
      expect(logged()).toEqual(REPORTED.map(({ name, type, reason }) => ({ name, type, reason })));
      await call({ type: "add_inherited_role", args: { ...INHERITED, role_name: "lead" } });
      expect(logged().slice(REPORTED.length)).toEqual([
        { name: "inherited_role inherited role lead", type: "inherited_role", reason: notServed("inherited roles") },
      ]);
    });
  });

  describe("action commands", () => {
    const create = (name: string, definition: Record<string, unknown> = ACTION.definition, extra: Record<string, unknown> = {}) => ({
      type: "create_action",
      args: { name, definition, ...extra },
    });

    it("create, update and drop actions and their permissions with Hasura's errors", async () => {
      // Types an action names must resolve, as Hasura's rebuild checks them (resolveAction).
      const unresolved = (problem: string) => ({
        code: "invalid-configuration",
        error: `Inconsistent object: ${problem}`,
        path: "$.args",
        status: 400,
      });
      expect(await fail(create("addUser"))).toEqual(
        unresolved('the type: "UserOut" is not an object or scalar type defined in custom types'),
      );
      await call({ type: "set_custom_types", args: CUSTOM_TYPES });
      const badArgument = { ...ACTION.definition, arguments: [{ name: "x", type: "UserOut!" }] };
      expect(await fail(create("addUser", badArgument))).toEqual(
        unresolved('the type: "UserOut" is not defined in custom types or it is not a scalar/enum/input_object'),
      );
      // Postgres scalars and GraphQL's own resolve without custom types.
      expect(
        await call(create("scalarAction", { ...ACTION.definition, arguments: [{ name: "id", type: "uuid!" }], output_type: "ID" })),
      ).toEqual({
        message: "success",
      });
      await call({ type: "drop_action", args: { name: "scalarAction" } });
      expect(await call(create("addUser", ACTION.definition, { comment: "adds" }))).toEqual({ message: "success" });
      expect(await fail(create("addUser"))).toEqual({
        code: "already-exists",
        error: 'action with name "addUser" already exists',
        path: "$.args",
        status: 400,
      });
      await call({ type: "create_action_permission", args: { action: "addUser", role: "user" } });
      await call({ type: "create_action_permission", args: { action: "addUser", role: "editor", comment: "e" } });
      expect(await fail({ type: "create_action_permission", args: { action: "addUser", role: "user" } })).toMatchObject({
        code: "already-exists",
        error: 'permission for role "user" is already defined on "addUser"',
      });
      expect(await fail({ type: "create_action_permission", args: { action: "nope", role: "user" } })).toMatchObject({
        code: "not-exists",
        error: 'action with name "nope" does not exist',
      });
      // Hasura puts a new permission first.
      expect((await exported()).actions).toEqual([
        {
          name: "addUser",
          definition: ACTION.definition,
          comment: "adds",
          permissions: [{ role: "editor", comment: "e" }, { role: "user" }],
        },
      ]);
      const changed = { ...ACTION.definition, handler: "https://example.test/v2" };
      await call({ type: "update_action", args: { name: "addUser", definition: changed } });
      expect((await exported()).actions).toEqual([
        { name: "addUser", definition: changed, permissions: [{ role: "editor", comment: "e" }, { role: "user" }] },
      ]);
      expect(await fail({ type: "update_action", args: { name: "nope", definition: changed } })).toMatchObject({
        code: "not-exists",
        error: 'action with name "nope" does not exist',
      });
      await call({ type: "drop_action_permission", args: { action: "addUser", role: "editor" } });
      expect(await fail({ type: "drop_action_permission", args: { action: "addUser", role: "editor" } })).toMatchObject({
        code: "not-exists",
        error: 'permission for role: "editor" is not defined on "addUser"',
      });
      expect(await reportedNames()).toEqual([]);
      await call({ type: "drop_action", args: { name: "addUser", clear_data: true } });
      expect(await exported()).not.toHaveProperty("actions");
      expect(await fail({ type: "drop_action", args: { name: "addUser" } })).toMatchObject({ code: "not-exists" });
      await call({ type: "set_custom_types", args: {} });
      expect(await inconsistent()).toEqual({ is_consistent: true });
    });

    it("refuse a malformed definition as Hasura's parser does", async () => {
      const { handler: _h, ...noHandler } = ACTION.definition;
      expect(await fail(create("a", noHandler))).toEqual({
        code: "parse-failed",
        error: 'key "handler" not found',
        path: "$.args.definition",
        status: 400,
      });
      expect(await fail(create("a", { ...ACTION.definition, type: "subscription" }))).toMatchObject({
        code: "parse-failed",
        error: "expected mutation or query, but found subscription",
      });
      expect(await fail(create("a", { ...ACTION.definition, arguments: [{ name: "x" }] }))).toMatchObject({
        code: "parse-failed",
        error: 'key "type" not found',
        path: "$.args.definition.arguments[0]",
      });
      // Headers as Hasura's HeaderConf reads them (its fixture queries/actions/metadata/create_with_headers.yaml).
      const withHeaders = (headers: unknown) => create("a", { ...ACTION.definition, headers });
      expect(await fail(withHeaders([{ name: "x-client-id", value_from_env: "HASURA_GRAPHQL_CLIENT_NAME" }]))).toMatchObject({
        code: "parse-failed",
        error: 'env variables starting with "HASURA_GRAPHQL_" are not allowed in value_from_env: HASURA_GRAPHQL_CLIENT_NAME',
        path: "$.args.definition.headers[0]",
      });
      expect(await fail(withHeaders([{ name: "a", value: "1" }, { name: "b" }]))).toMatchObject({
        error: "expecting value or value_from_env keys",
        path: "$.args.definition.headers[1]",
      });
      expect(await fail(withHeaders([{ name: "a", value: "1", value_from_env: "X" }]))).toMatchObject({
        error: "expecting only one of value or value_from_env keys",
      });
      expect(await exported()).not.toHaveProperty("actions");
    });

    it("set_custom_types replaces the custom types, and an empty set removes them", async () => {
      await call({ type: "set_custom_types", args: { ...CUSTOM_TYPES, enums: [], scalars: [{ name: "Date" }] } });
      expect((await exported()).custom_types).toEqual({ ...CUSTOM_TYPES, scalars: [{ name: "Date" }] });
      expect(await reportedNames()).toEqual([]);
      expect(await fail({ type: "set_custom_types", args: { objects: [{ fields: [] }] } })).toMatchObject({
        code: "parse-failed",
        path: "$.args.objects[0]",
      });
      await call({ type: "set_custom_types", args: {} });
      expect(await exported()).not.toHaveProperty("custom_types");
    });

    it("set_custom_types refuses what Hasura's schema cache refuses, with its reasons", async () => {
      const refused = async (args: unknown) => {
        const error = await rejection({ type: "set_custom_types", args });
        expect({ code: error.hasuraCode, path: error.path, status: error.status }).toEqual({
          code: "invalid-configuration",
          path: "$.args",
          status: 400,
        });
        expect(error.details).toEqual([
          { definition: reportedCustomTypes(args), reason: error.message, name: "custom_types custom_types", type: "custom_types" },
        ]);
        return error.message.replace(/^Inconsistent object: validation for the given custom types failed /, "");
      };
      // Hasura's own case (queries/actions/custom-types/reuse_unknown_pgscalar.yaml), Postgres scalars allowed.
      expect(
        await refused({
          objects: [
            {
              name: "User",
              fields: [
                { name: "user_id", type: "uuid!" },
                { name: "unknown_pgtype", type: "unknown_type" },
              ],
            },
          ],
          input_objects: [
            {
              name: "UserInput",
              fields: [
                { name: "name", type: "String!" },
                { name: "id", type: "uuid!" },
              ],
            },
          ],
        }),
      ).toBe('because the type "unknown_type" for field "unknown_pgtype" in  object type "User" does not exist');
      expect(
        await refused({
          input_objects: [{ name: "In", fields: [{ name: "o", type: "[Out]" }] }],
          objects: [{ name: "Out", fields: [{ name: "id", type: "Int" }] }],
        }),
      ).toBe('because the type "Out" for field "o" in  input object type "In" does not exist');
      // Collected problems are listed; a refusing one ends the list.
      expect(
        await refused({
          scalars: [{ name: "Dup" }],
          enums: [{ name: "Dup", values: [{ value: "A" }, { value: "A" }] }],
          objects: [
            {
              name: "O",
              fields: [
                { name: "a", type: "Int" },
                { name: "a", type: "Int", arguments: [] },
              ],
            },
            {
              name: "P",
              fields: [{ name: "ids", type: "[Int]" }],
              relationships: [{ name: "author", type: "object", remote_table: "author", field_mapping: { ids: "id", nope: "id" } }],
            },
            {
              name: "Q",
              fields: [{ name: "id", type: "Int" }],
              relationships: [{ name: "x", type: "object", remote_table: "author", field_mapping: { id: "no_such_column" } }],
            },
          ],
        }),
      ).toBe(
        [
          "for the following reasons:",
          '  • duplicate type names: "Dup"',
          '  • the enum type "Dup" has duplicate values: "A"',
          '  • the object "O" has duplicate fields: "a"',
          '  • the object "O" can\'t have arguments',
          '  • the type of the field "ids" for relationship "author" in object type "P" is a list type',
          '  • the field "nope" for relationship "author" in object type "P" does not exist',
          '  • the column "no_such_column" of remote table "author" for relationship "x" of object type "Q" does not exist',
          "",
        ].join("\n"),
      );
      expect(
        await refused({
          objects: [
            {
              name: "O",
              fields: [{ name: "id", type: "Int" }],
              relationships: [{ name: "r", type: "object", remote_table: "untracked", field_mapping: { id: "id" } }],
            },
          ],
        }),
      ).toBe('because the remote table "untracked" for relationship "r" of object type "O" does not exist');
      // Valid ones (Postgres scalars, enums, inputs, relationships to tracked tables) are kept.
      const valid = {
        scalars: [{ name: "Date" }],
        enums: [{ name: "Mood", values: [{ value: "HAPPY" }, { value: "SAD" }] }],
        input_objects: [
          {
            name: "UserIn",
            fields: [
              { name: "id", type: "uuid!" },
              { name: "mood", type: "Mood" },
              { name: "on", type: "Date" },
            ],
          },
        ],
        objects: [
          {
            name: "UserOut",
            fields: [
              { name: "id", type: "Int!" },
              { name: "tags", type: "[String!]" },
            ],
            relationships: [{ name: "author", type: "object", remote_table: "author", field_mapping: { id: "id" } }],
          },
        ],
      };
      await call({ type: "set_custom_types", args: valid });
      expect((await exported()).custom_types).toEqual(valid);
      expect(await exported()).not.toHaveProperty("custom_types.objects.0.arguments");
      // Loaded another way (replace_metadata, a metadata directory), invalid ones are reported with the reason.
      const broken = { objects: [{ name: "User", fields: [{ name: "x", type: "Nope" }] }] };
      await call({ type: "replace_metadata", args: { ...(await exported()), custom_types: broken } });
      expect((await inconsistent()).inconsistent_objects).toEqual([
        {
          definition: reportedCustomTypes(broken),
          name: "custom_types custom_types",
          reason:
            'Inconsistent object: validation for the given custom types failed because the type "Nope" for field "x" in  object type "User" does not exist',
          type: "custom_types",
        },
      ]);
      const orphan = { name: "orphan", definition: { ...ACTION.definition, output_type: "Missing" } };
      await call({ type: "replace_metadata", args: { ...(await exported()), custom_types: valid, actions: [orphan] } });
      expect((await inconsistent()).inconsistent_objects).toEqual([
        {
          definition: reportedAction(orphan),
          name: "action orphan",
          reason: 'Inconsistent object: the type: "Missing" is not an object or scalar type defined in custom types',
          type: "action",
        },
      ]);
      // Reported as Hasura's CreateAction, its defaults spelled out (queries/actions/nested-relation fixture).
      expect(reportedAction(orphan)).toEqual({
        name: "orphan",
        definition: {
          arguments: [],
          forward_client_headers: false,
          handler: "https://example.test/add",
          headers: [],
          kind: "asynchronous",
          output_type: "Missing",
          timeout: 30,
          type: "mutation",
        },
        comment: null,
      });
    });
  });

  describe("remote schema commands", () => {
    it("add, update, reload and remove remote schemas", async () => {
      const add = { type: "add_remote_schema", args: REMOTE_SCHEMA };
      expect(await call(add)).toEqual({ message: "success" });
      // Its headers are read by the same HeaderConf rules as an action's.
      const secretHeader = {
        name: "x",
        definition: { url: "https://x.test/graphql", headers: [{ name: "k", value_from_env: "HASURA_GRAPHQL_ADMIN_SECRET" }] },
      };
      expect(await fail({ type: "add_remote_schema", args: secretHeader })).toMatchObject({
        code: "parse-failed",
        error: 'env variables starting with "HASURA_GRAPHQL_" are not allowed in value_from_env: HASURA_GRAPHQL_ADMIN_SECRET',
        path: "$.args.definition.headers[0]",
      });
      expect(await fail(add)).toMatchObject({ code: "already-exists", error: 'remote schema with name "countries" already exists' });
      expect(await fail({ type: "add_remote_schema", args: { name: "x", definition: { headers: [] } } })).toEqual({
        code: "invalid-params",
        error: "both `url` and `url_from_env` can't be empty",
        path: "$.args",
        status: 400,
      });
      expect(
        await fail({ type: "add_remote_schema", args: { name: "x", definition: { url: "https://a.test", url_from_env: "URL" } } }),
      ).toMatchObject({ code: "invalid-params", error: "both `url` and `url_from_env` can't be present" });

      // Permissions need HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS (remote-schema-permissions.test.ts).
      const permission = { remote_schema: "countries", role: "user", definition: { schema: "type Query { country: String }" } };
      expect(
        await fail({ type: "add_remote_schema_permissions", args: { ...permission, role: "x", definition: { schema: "type {" } } }),
      ).toMatchObject({ code: "parse-failed", path: "$.args.definition.schema" });
      expect(await fail({ type: "add_remote_schema_permissions", args: permission })).toMatchObject({
        code: "constraint-violation",
        error: "remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine",
      });

      const definition = { url_from_env: "COUNTRIES_URL" };
      await call({ type: "update_remote_schema", args: { name: "countries", definition } });
      expect((await exported()).remote_schemas).toEqual([
        // Stored as Hasura stores a definition: forward_client_headers always there.
        { name: "countries", definition: { ...definition, forward_client_headers: false } },
      ]);
      expect(await fail({ type: "update_remote_schema", args: { name: "nope", definition } })).toMatchObject({
        code: "not-exists",
        error: 'remote schema with name "nope" doesn\'t exist',
      });
      expect(await call({ type: "reload_remote_schema", args: { name: "countries" } })).toEqual({ message: "success" });
      expect(await fail({ type: "reload_remote_schema", args: { name: "nope" } })).toMatchObject({
        code: "not-exists",
        error: 'remote schema with name "nope" does not exist',
      });
      expect(await fail({ type: "drop_remote_schema_permissions", args: { remote_schema: "countries", role: "user" } })).toMatchObject({
        code: "not-exists",
        error: 'permissions for role: "user" for remote schema:"countries" doesn\'t exist',
      });
      await call({ type: "remove_remote_schema", args: { name: "countries" } });
      expect(await exported()).not.toHaveProperty("remote_schemas");
      expect(await fail({ type: "remove_remote_schema", args: { name: "countries" } })).toMatchObject({
        code: "not-exists",
        error: "no such remote schema",
      });
    });
  });

  describe("remote relationship commands", () => {
    const args = { source: "default", table: "article", ...REMOTE_REL };

    it("create, update and delete remote relationships on a tracked table, in both argument forms", async () => {
      // Relationships to a remote schema are served (remote-relationships.test.ts): they need the remote schema.
      await call({ type: "add_remote_schema", args: REMOTE_SCHEMA });
      await call({ type: "pg_create_remote_relationship", args });
      expect((await articleTable()).remote_relationships).toEqual([REMOTE_REL]);
      expect(await reportedNames()).toEqual([]);

      // The legacy form (bare name, /v1/query) keeps its fields under `definition`.
      const field = { country: { arguments: { code: "$title" } } };
      const legacy = { name: "legacy", table: "article", remote_schema: "countries", hasura_fields: ["title"], remote_field: field };
      await call({ type: "create_remote_relationship", args: legacy }, "/v1/query");
      const legacyRel = { name: "legacy", definition: { remote_schema: "countries", hasura_fields: ["title"], remote_field: field } };
      expect((await articleTable()).remote_relationships).toEqual([REMOTE_REL, legacyRel]);
      expect(await reportedNames()).toEqual([]);
      expect(await fail({ type: "pg_create_remote_relationship", args: { ...legacy, definition: REMOTE_REL.definition } })).toEqual({
        code: "parse-failed",
        error: "create_remote_relationship expects exactly one of: remote_schema, definition",
        path: "$.args",
        status: 400,
      });

      const updated = { name: "country", definition: { to_source: { source: "default", table: "author", relationship_type: "object" } } };
      await call({ type: "pg_update_remote_relationship", args: { table: "article", ...updated } });
      expect((await articleTable()).remote_relationships).toEqual([updated, legacyRel]);
      expect(((await inconsistent()).inconsistent_objects ?? [])[0]).toMatchObject({
        definition: { source: "default", table: ARTICLE, name: "country", definition: updated.definition },
        name: "remote_relationship country in table article in source default",
        type: "remote_relationship",
      });
      expect(await fail({ type: "pg_update_remote_relationship", args: { ...args, name: "nope" } })).toMatchObject({
        code: "not-exists",
        error: '"nope" does not exist',
      });
      expect(await fail({ type: "pg_update_remote_relationship", args: { ...args, name: "title" } })).toMatchObject({
        code: "unexpected-payload",
        error: "expecting a remote relationship",
      });

      await call({ type: "pg_delete_remote_relationship", args: { table: "article", name: "country" } });
      await call({ type: "delete_remote_relationship", args: { table: "article", name: "legacy" } }, "/v1/query");
      expect(await articleTable()).not.toHaveProperty("remote_relationships");
      expect(await fail({ type: "pg_delete_remote_relationship", args: { table: "article", name: "legacy" } })).toMatchObject({
        code: "not-exists",
      });
      await call({ type: "remove_remote_schema", args: { name: "countries" } });
    });

    it("answer an untracked table as other table commands do", async () => {
      expect(await fail({ type: "pg_create_remote_relationship", args: { ...args, table: "nope" } })).toEqual({
        code: "not-exists",
        error: 'table "nope" does not exist in source: default',
        path: "$.args",
        status: 400,
      });
    });
  });

  describe("event trigger commands", () => {
    const trigger = { name: "article_created", table: "article", webhook: "https://example.test/events", insert: { columns: "*" } };

    it("create, replace and delete event triggers, storing Hasura's trigger configuration", async () => {
      await call({ type: "pg_create_event_trigger", args: { ...trigger, source: "default" } });
      expect((await articleTable()).event_triggers).toEqual([EVENT_TRIGGER]);
      // Served (event-triggers.test.ts delivers them): not reported.
      expect(await reportedNames()).toEqual([]);
      expect(await fail({ type: "pg_create_event_trigger", args: trigger })).toEqual({
        code: "already-exists",
        error: 'Event trigger with name "article_created" already exists',
        path: "$.args",
        status: 400,
      });
      expect(await fail({ type: "pg_create_event_trigger", args: { ...trigger, table: "author", replace: true } })).toMatchObject({
        code: "not-supported",
        error: "cannot replace table or schema for trigger",
      });
      const replaced = { ...trigger, insert: undefined, update: { columns: ["title"] }, retry_conf: { num_retries: 3 }, replace: true };
      await call({ type: "pg_create_event_trigger", args: replaced });
      expect((await articleTable()).event_triggers).toEqual([
        {
          name: "article_created",
          definition: { enable_manual: false, update: { columns: ["title"] } },
          retry_conf: { num_retries: 3 },
          webhook: trigger.webhook,
        },
      ]);
      // The legacy name on /v1/query, on another table.
      await call(
        {
          type: "create_event_trigger",
          args: { ...trigger, name: "author_manual", table: "author", insert: undefined, enable_manual: true },
        },
        "/v1/query",
      );
      expect(await reportedNames()).toEqual([]);
      await call({ type: "pg_delete_event_trigger", args: { name: "article_created" } });
      await call({ type: "delete_event_trigger", args: { name: "author_manual" } }, "/v1/query");
      expect(await articleTable()).not.toHaveProperty("event_triggers");
      expect(await fail({ type: "pg_delete_event_trigger", args: { name: "article_created" } })).toMatchObject({
        code: "not-exists",
        error: 'event trigger "article_created" does not exist',
      });
      expect(await inconsistent()).toEqual({ is_consistent: true });
    });

    it("refuse what Hasura's parser and checks refuse", async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ ...trigger, webhook: undefined }, "parse-failed", "must provide webhook or webhook_from_env"],
        [{ ...trigger, webhook_from_env: "HOOK" }, "parse-failed", "only one of webhook or webhook_from_env should be given"],
        [{ ...trigger, insert: undefined }, "parse-failed", "atleast one amongst insert/update/delete/enable_manual spec must be provided"],
        [{ ...trigger, name: "bad name" }, "parse-failed", "only alphanumeric and underscore and hyphens allowed for name"],
        [{ ...trigger, name: "x".repeat(43) }, "parse-failed", "event trigger name can be at most 42 characters"],
        [{ ...trigger, insert: { columns: [] } }, "parse-failed", "found empty column specification"],
        [{ ...trigger, insert: { columns: ["nope"] } }, "not-exists", 'column "nope" does not exist'],
        [{ ...trigger, replace: true }, "not-exists", 'event trigger "article_created" does not exist'],
        [{ ...trigger, table: "nope" }, "not-exists", 'table "nope" does not exist in source: default'],
      ];
      for (const [args, code, error] of cases) {
        expect(await fail({ type: "pg_create_event_trigger", args })).toEqual({ code, error, path: "$.args", status: 400 });
      }
      expect(await articleTable()).not.toHaveProperty("event_triggers");
    });
  });

  describe("cron trigger commands", () => {
    it("create, replace and delete cron triggers with Hasura's errors", async () => {
      const create = { type: "create_cron_trigger", args: { ...SERVED_CRON, comment: "nightly run" } };
      await call(create);
      expect((await exported()).cron_triggers).toEqual([{ ...SERVED_CRON, comment: "nightly run" }]);
      expect(await fail(create)).toEqual({
        code: "already-exists",
        error: "cron trigger with name: nightly already exists",
        path: "$.args",
        status: 400,
      });
      await call({ type: "create_cron_trigger", args: { ...SERVED_CRON, schedule: "0 1 * * *", replace: true } });
      expect((await exported()).cron_triggers).toEqual([{ ...SERVED_CRON, schedule: "0 1 * * *" }]);
      expect(await fail({ type: "create_cron_trigger", args: { ...SERVED_CRON, name: "other", replace: true } })).toMatchObject({
        code: "not-exists",
        error: "cron trigger with name: other does not exist",
      });
      const { include_in_metadata: _i, ...partial } = SERVED_CRON;
      expect(await fail({ type: "create_cron_trigger", args: partial })).toMatchObject({
        code: "parse-failed",
        error: 'key "include_in_metadata" not found',
      });
      // Served with its transform: not reported.
      expect(await reportedNames()).toEqual([]);
      await call({ type: "delete_cron_trigger", args: { name: "nightly" } });
      expect(await exported()).not.toHaveProperty("cron_triggers");
      expect(await fail({ type: "delete_cron_trigger", args: { name: "nightly" } })).toMatchObject({
        code: "not-exists",
        error: "cron trigger with name: nightly does not exist",
      });
    });
  });

  describe("query collection, allow list, REST endpoint and inherited role commands", () => {
    it("keep query collections and the allow list, unreported, with Hasura's errors", async () => {
      const collection = { name: "c", definition: { queries: [{ name: "q", query: "query q { author { id } }" }] } };
      await call({ type: "create_query_collection", args: collection });
      expect(await fail({ type: "create_query_collection", args: collection })).toEqual({
        code: "already-exists",
        error: 'query collection with name "c" already exists',
        path: "$.args.name",
        status: 400,
      });
      const twice = { name: "d", definition: { queries: [collection.definition.queries[0], collection.definition.queries[0]] } };
      expect(await fail({ type: "create_query_collection", args: twice })).toMatchObject({
        code: "not-supported",
        error: 'found duplicate query names "q"',
        path: "$.args.definition.queries",
      });
      const add = {
        type: "add_query_to_collection",
        args: { collection_name: "c", query_name: "r", query: "query r { author { name } }" },
      };
      await call(add);
      expect(await fail(add)).toMatchObject({ code: "already-exists", error: 'query with name "r" already exists in collection "c"' });
      await call({ type: "drop_query_from_collection", args: { collection_name: "c", query_name: "r" } });
      expect(await fail({ type: "drop_query_from_collection", args: { collection_name: "c", query_name: "r" } })).toMatchObject({
        code: "not-found",
        error: 'query with name "r" not found in collection "c"',
      });
      await call({ type: "add_collection_to_allowlist", args: { collection: "c" } });
      expect(await call({ type: "add_collection_to_allowlist", args: { collection: "c" } })).toEqual({
        message:
          'collection "c" already exists in the allowlist, scope ignored; to change scope, use update_scope_of_collection_in_allowlist',
      });
      expect(await exported()).toMatchObject({ query_collections: [collection], allowlist: [{ collection: "c" }] });
      expect(await inconsistent()).toEqual({ is_consistent: true });
      expect(await fail({ type: "drop_query_collection", args: { collection: "c", cascade: false } })).toMatchObject({
        code: "dependency-error",
        path: "$.args.collection",
      });
      await call({ type: "drop_query_collection", args: { collection: "c", cascade: true } });
      expect(await exported()).not.toHaveProperty("query_collections");
      expect(await exported()).not.toHaveProperty("allowlist");
      expect(await fail({ type: "drop_collection_from_allowlist", args: { collection: "c" } })).toMatchObject({
        code: "not-exists",
        error: 'query collection with name "c" does not exist',
        path: "$.args.collection",
      });
    });

    it("keep and report REST endpoints and inherited roles", async () => {
      await call({ type: "create_rest_endpoint", args: ENDPOINT });
      expect(await fail({ type: "create_rest_endpoint", args: ENDPOINT })).toMatchObject({
        code: "already-exists",
        error: "Endpoint with name: articles already exists",
      });
      await call({ type: "add_inherited_role", args: INHERITED });
      expect(await fail({ type: "add_inherited_role", args: { role_name: "m", role_set: ["m", "user"] } })).toMatchObject({
        code: "invalid-params",
        error: "an inherited role name cannot be in the role combination",
      });
      expect(await exported()).toMatchObject({ rest_endpoints: [ENDPOINT], inherited_roles: [INHERITED] });
      expect(await reportedNames()).toEqual(["inherited_role inherited role manager", "rest_endpoint articles"]);
      await call({ type: "drop_rest_endpoint", args: { name: "articles" } });
      await call({ type: "drop_inherited_role", args: { role_name: "manager" } });
      expect(await fail({ type: "drop_rest_endpoint", args: { name: "articles" } })).toMatchObject({
        code: "not-exists",
        error: "endpoint with name: articles does not exist",
      });
      expect(await fail({ type: "drop_inherited_role", args: { role_name: "manager" } })).toMatchObject({
        code: "not-exists",
        error: '"manager" inherited role doesn\'t exist',
      });
      expect(await inconsistent()).toEqual({ is_consistent: true });
    });
  });

  it("a failing bulk step keeps none of the commands before it", async () => {
    const bulk = {
      type: "bulk",
      args: [
        { type: "set_custom_types", args: CUSTOM_TYPES },
        { type: "create_action", args: { name: "addUser", definition: ACTION.definition } },
        { type: "create_cron_trigger", args: SERVED_CRON },
        { type: "drop_action", args: { name: "nope" } },
      ],
    };
    expect(await fail(bulk)).toMatchObject({ code: "not-exists", path: "$.args[3].args" });
    expect(await inconsistent()).toEqual({ is_consistent: true });
  });
});
