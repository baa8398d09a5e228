/**
 * Unserved metadata from a Hasura project directory: actions.graphql merged into actions and
 * custom types as Hasura's CLI merges it, the other files kept, and at start-up one warn line
 * per inconsistent object (then one per object an admin change brings in), over HTTP on a real
 * database.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { ActionsSdlError, mergeActionsSdl } from "../src/engine/metadata/actions-sdl.js";
import { INCONSISTENT_OBJECT_LOG } from "../src/engine/metadata/inconsistency-log.js";
import { loadMetadataDir, MetadataDirError } from "../src/engine/metadata/load-dir.js";
import { createGraphql } from "../src/server.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const SDL = `
type Query {
  """ One user """
  getUser(id: ID!): User
}

extend type Mutation {
  addUser(input: UserInput!, tags: [String!]): User
}

"A user"
type User {
  id: ID!
  name: String
}

input UserInput {
  name: String!
  role: Role = admin
}

enum Role {
  "Can do anything"
  admin
  guest
}

scalar Date
`;

const ACTIONS_YAML = {
  actions: [
    { name: "addUser", definition: { kind: "synchronous", handler: "https://example.test/add" }, permissions: [{ role: "user" }] },
    { name: "getUser", definition: { handler: "https://example.test/get", timeout: 5 }, comment: "reads" },
  ],
  custom_types: {
    objects: [
      { name: "User", relationships: [{ name: "articles", type: "array", remote_table: "article", field_mapping: { id: "author_id" } }] },
    ],
    enums: [],
    scalars: [{ name: "Date", description: "ISO date" }],
  },
};

describe("mergeActionsSdl", () => {
  it("takes arguments, output types, fields and values from the SDL and the rest from actions.yaml", () => {
    expect(mergeActionsSdl(ACTIONS_YAML, SDL)).toEqual({
      actions: [
        {
          name: "getUser",
          comment: "reads",
          definition: {
            type: "query",
            arguments: [{ name: "id", type: "ID!" }],
            output_type: "User",
            handler: "https://example.test/get",
            timeout: 5,
          },
        },
        {
          name: "addUser",
          definition: {
            type: "mutation",
            arguments: [
              { name: "input", type: "UserInput!" },
              { name: "tags", type: "[String!]" },
            ],
            output_type: "User",
            kind: "synchronous",
            handler: "https://example.test/add",
          },
          permissions: [{ role: "user" }],
        },
      ],
      custom_types: {
        scalars: [{ name: "Date", description: "ISO date" }],
        enums: [{ name: "Role", values: [{ value: "admin", description: "Can do anything" }, { value: "guest" }] }],
        input_objects: [
          {
            name: "UserInput",
            fields: [
              { name: "name", type: "String!" },
              { name: "role", type: "Role" },
            ],
          },
        ],
        objects: [
          {
            name: "User",
            description: "A user",
            fields: [
              { name: "id", type: "ID!" },
              { name: "name", type: "String" },
            ],
            relationships: ACTIONS_YAML.custom_types.objects[0]?.relationships,
          },
        ],
      },
    });
  });

  it("refuses what Hasura's CLI refuses: YAML entries the SDL lacks, broken SDL, interfaces", () => {
    expect(() => mergeActionsSdl({ actions: [{ name: "gone", definition: {} }] }, SDL)).toThrow(
      new ActionsSdlError('action "gone" is not present in actions.graphql'),
    );
    expect(() => mergeActionsSdl({ custom_types: { objects: [{ name: "Gone" }] } }, SDL)).toThrow(/custom type "Gone" is not present/);
    expect(() => mergeActionsSdl({}, "type Query {")).toThrow(ActionsSdlError);
    expect(() => mergeActionsSdl({}, "interface Node { id: ID! }")).toThrow("Interface types are not supported");
    expect(mergeActionsSdl({ actions: [] }, "  \n")).toEqual({});
  });
});

const REMOTE_SCHEMA = { name: "countries", definition: { url: "https://countries.test/graphql" } };
/** Cron triggers are served with their transforms, but not with a transform of a shape Hasura refuses. */
const CRON = {
  name: "nightly",
  webhook: "https://example.test/cron",
  schedule: "0 0 * * *",
  include_in_metadata: true,
  request_transform: { version: 3, template_engine: "Kriti", body: { action: "transform", template: "{{$body.payload}}" } },
};
const CRON_REASON = "Inconsistent object: invalid transform: expected 1 or 2, encountered 3 at $.request_transform.version";
const EVENT_TRIGGER = {
  name: "article_created",
  definition: { enable_manual: false, insert: { columns: "*" } },
  retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
  webhook: "https://example.test/events",
};
const REMOTE_REL = {
  name: "country",
  definition: { to_remote_schema: { remote_schema: "countries", lhs_fields: ["title"], remote_field: { c: {} } } },
};

/** A config v3 project directory with one table and every unserved kind. */
function writeProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "metadata-unserved-"));
  const tables = join(dir, "databases", "default", "tables");
  mkdirSync(tables, { recursive: true });
  const json = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value, null, 2));
  writeFileSync(join(dir, "version.yaml"), "version: 3\n");
  writeFileSync(
    join(dir, "databases", "databases.yaml"),
    '- name: default\n  kind: postgres\n  configuration:\n    connection_info:\n      database_url:\n        from_env: HASURA_GRAPHQL_DATABASE_URL\n  tables: "!include default/tables/tables.yaml"\n',
  );
  writeFileSync(join(tables, "tables.yaml"), '- "!include public_article.yaml"\n');
  json(join(tables, "public_article.yaml"), {
    table: { schema: "public", name: "article" },
    remote_relationships: [REMOTE_REL],
    event_triggers: [EVENT_TRIGGER],
  });
  json(join(dir, "actions.yaml"), ACTIONS_YAML);
  writeFileSync(join(dir, "actions.graphql"), SDL);
  json(join(dir, "remote_schemas.yaml"), [REMOTE_SCHEMA]);
  json(join(dir, "cron_triggers.yaml"), [CRON]);
  return dir;
}

/** The project's actions, custom types and event triggers are served, so they are not reported. */
const EXPECTED_LOG = [
  { name: "remote_schema countries", type: "remote_schema" },
  // Served once it resolves; its remote schema is not served here (remote/relationships.ts).
  { name: "remote_relationship country in table article in source default", type: "remote_relationship" },
  { name: "cron_trigger nightly", type: "cron_trigger" },
  // The event trigger is served (event-triggers.test.ts): not reported.
];

describe("a metadata directory with unserved metadata", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("loads the merged actions and every other unserved object", async () => {
    const dir = writeProject();
    dirs.push(dir);
    const metadata = await loadMetadataDir(dir);
    expect(metadata.actions).toEqual(mergeActionsSdl(ACTIONS_YAML, SDL).actions);
    expect(metadata.custom_types).toEqual(mergeActionsSdl(ACTIONS_YAML, SDL).custom_types);
    expect(metadata.remote_schemas).toEqual([REMOTE_SCHEMA]);
    expect(metadata.cron_triggers).toEqual([CRON]);
    expect(metadata.sources[0]?.tables).toEqual([
      { table: { schema: "public", name: "article" }, remote_relationships: [REMOTE_REL], event_triggers: [EVENT_TRIGGER] },
    ]);
  });

  it("names actions.graphql when it cannot be merged", async () => {
    const dir = writeProject();
    dirs.push(dir);
    writeFileSync(join(dir, "actions.graphql"), "type Mutation { addUser: User }\ntype User { id: ID }\n");
    await expect(loadMetadataDir(dir)).rejects.toThrow(MetadataDirError);
    await expect(loadMetadataDir(dir)).rejects.toThrow(/actions\.graphql: action "getUser" is not present in actions\.graphql/);
  });

  describe.each(testBackends)("at start-up on %s", (backend) => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(backend);
      await database.db.exec("CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int);");
    });
    afterAll(async () => database?.dispose());

    async function start(env: Record<string, string>) {
      const logger = createLogger({ level: "silent" });
      const warn = vi.spyOn(logger, "warn");
      const config = readGraphqlConfig({
        HASURA_GRAPHQL_ADMIN_SECRET: "a-secret",
        HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
        ...env,
      });
      const service = await createGraphql(config, logger, { db: database.db });
      const logged = () =>
        warn.mock.calls.filter((call) => call[1] === INCONSISTENT_OBJECT_LOG).map((call) => call[0] as Record<string, string>);
      const metadataApi = async (payload: Record<string, unknown>) => {
        const res = await service.app.inject({
          method: "POST",
          url: "/v1/metadata",
          payload,
          headers: { "x-hasura-admin-secret": "a-secret" },
        });
        return { status: res.statusCode, body: res.json() as Record<string, unknown> };
      };
      return { service, logged, metadataApi };
    }

    it("logs one warn line per inconsistent object, then the ones an admin change brings in", async () => {
      const dir = writeProject();
      dirs.push(dir);
      const { service, logged, metadataApi } = await start({ HASURA_GRAPHQL_METADATA_DIR: dir });
      try {
        expect(logged().map(({ name, type }) => ({ name, type }))).toEqual(EXPECTED_LOG);
        // The remote schema cannot be fetched (no such host): reported with Hasura's reason; the others are not served.
        const [remote, relationship, cron] = logged();
        expect(remote?.reason).toBe(
          'Inconsistent object: HTTP exception occurred while sending the request to "https://countries.test/graphql"',
        );
        expect(relationship?.reason).toBe(
          'Inconsistent object: in table "article": in remote relationship"country": remote schema with name "countries" not found',
        );
        expect(cron?.reason).toBe(CRON_REASON);

        const report = await metadataApi({ type: "get_inconsistent_metadata", args: {} });
        expect(report.status).toBe(200);
        expect(report.body.is_consistent).toBe(false);
        expect((report.body.inconsistent_objects as { name: string }[]).map((o) => o.name)).toEqual(EXPECTED_LOG.map((o) => o.name));
        const exported = await metadataApi({ type: "export_metadata", args: {} });
        expect(exported.body).toEqual(await loadMetadataDir(dir));
        // The actions from actions.graphql + actions.yaml are fields of the schema.
        const roots = await service.app.inject({
          method: "POST",
          url: "/v1/graphql",
          payload: { query: '{ q: __type(name: "query_root") { fields { name } } m: __type(name: "mutation_root") { fields { name } } }' },
          headers: { "x-hasura-admin-secret": "a-secret" },
        });
        const names = (type: "q" | "m") => (roots.json().data[type].fields as { name: string }[]).map((f) => f.name);
        expect(names("q")).toContain("getUser");
        expect(names("m")).toContain("addUser");

        // A cron trigger with a transform is served: nothing logged. An inherited role is not served: logged.
        const hourly = { ...CRON, name: "hourly", request_transform: { ...CRON.request_transform, version: 2 } };
        expect(await metadataApi({ type: "create_cron_trigger", args: hourly })).toEqual({ status: 200, body: { message: "success" } });
        const role = { role_name: "manager", role_set: ["user", "editor"] };
        expect(await metadataApi({ type: "add_inherited_role", args: role })).toEqual({ status: 200, body: { message: "success" } });
        expect(logged().slice(EXPECTED_LOG.length)).toEqual([
          {
            name: "inherited_role inherited role manager",
            type: "inherited_role",
            reason: "Inconsistent object: inherited roles are not supported by this engine yet; kept in metadata but not served",
          },
        ]);
        // Errors in the metadata API's shape, with a 400.
        expect(await metadataApi({ type: "create_cron_trigger", args: hourly })).toEqual({
          status: 400,
          body: { path: "$.args", error: "cron trigger with name: hourly already exists", code: "already-exists" },
        });
      } finally {
        await service.close();
      }

      // A restart logs what the stored metadata holds, even without a metadata directory.
      const again = await start({});
      try {
        expect(again.logged().map((o) => o.name)).toEqual([...EXPECTED_LOG.map((o) => o.name), "inherited_role inherited role manager"]);
      } finally {
        await again.service.close();
      }
    });
  });
});
