/**
 * The remote schemas area: hasura/graphql-engine server/tests-py test_schema_stitching.py as a run
 * plan, class by class and test by test in upstream order, each class with conftest.py's
 * `gql_server` (remote-schemas-server.ts, REMOTE_SCHEMAS_WEBHOOK_DOMAIN). A class's autouse
 * `transact` fixture (add a remote schema, or tbls_setup.yaml, before each test; clear_metadata or
 * tbls_teardown.yaml after) wraps each of its tests; test bodies that are Python code are ported
 * below line for line, the websocket class's over the class's Apollo client. Not run: tests reading
 * queries/graphql_introspection/introspection_user_role.yaml (not stored). introspection.yaml is
 * not stored either: the standard introspection query (graphql-js getIntrospectionQuery) stands in
 * for it, since those tests only read type names, root field names and argument types from it.
 * test_remote_schema_permissions.py's classes (remote-schema-permissions-plan.ts) run with
 * them. test_remote_relationships.py (the remote_relationships folder) is its own area,
 * remote-relationships-plan.ts, against its remote ported in remote-relationships-server.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getIntrospectionQuery, type ObjectValueNode, parseValue, print } from "graphql";
import { type ClassPlan, FIXTURE_ROOT, type FolderPlan, loadFixture, type TestPlan } from "./fixtures.js";
import { assertEqual, assertStatus, dig, type InlineContext, InlineFailure, type InlineTest } from "./inline.js";
import { REMOTE_RELATIONSHIPS_DIR } from "./remote-relationships-plan.js";
import { REMOTE_SCHEMA_PERMISSION_CLASSES, REMOTE_SCHEMA_PERMISSION_FILES } from "./remote-schema-permissions-plan.js";
import { currentGqlServer } from "./remote-schemas-server.js";

const DIR = "queries/remote_schemas";
const VALIDATION = "queries/remote_schemas/validation";

/**
 * tests-py runs the engine with HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS at its default (true): the
 * timeout test reads `extensions.internal` (see actions-plan.ts for the runner's default).
 */
const ENV = { HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS: "true" };

const server = () => process.env.REMOTE_SCHEMAS_WEBHOOK_DOMAIN ?? "";

function remoteDefinition(url: string, headers: unknown, clientHdrs: boolean, timeout: number | null, customization: unknown) {
  return {
    url,
    headers: headers ?? null,
    forward_client_headers: clientHdrs,
    timeout_seconds: timeout,
    customization: customization ?? null,
  };
}

/** `mk_add_remote_q(name, url, headers=None, client_hdrs=False, timeout=None, customization=None)` */
function mkAdd(name: string, url: string, o: { headers?: unknown; client?: boolean; timeout?: number; customization?: unknown } = {}) {
  return {
    type: "add_remote_schema",
    args: {
      name,
      comment: `testing ${name}`,
      definition: remoteDefinition(url, o.headers, o.client ?? false, o.timeout ?? null, o.customization),
    },
  };
}

function mkUpdate(name: string, url: string, headers: unknown, client: boolean, timeout: number | null, customization?: unknown) {
  return {
    type: "update_remote_schema",
    args: { name, comment: `testing ${name}`, definition: remoteDefinition(url, headers, client, timeout, customization) },
  };
}

const mkDelete = (name: string) => ({ type: "remove_remote_schema", args: { name } });
const mkReload = (name: string) => ({ type: "reload_remote_schema", args: { name } });
const exportMetadata = { type: "export_metadata", args: {} };
const clearMetadata = { type: "clear_metadata", args: {} };

/** `hge_ctx.v1q(q, expected_status_code)`: POST /v1/query, the status asserted; the body. */
async function v1q(ctx: InlineContext, body: unknown, expected = 200): Promise<unknown> {
  const reply = await ctx.anyq("/v1/query", body);
  assertStatus(reply, expected, `v1q ${(body as { type?: string }).type ?? ""}`);
  return reply.body;
}

const v1qFile = (ctx: InlineContext, file: string, expected = 200) => v1q(ctx, loadFixture(file), expected);

/** `check_query(hge_ctx, introspection.yaml)`: the full introspection, as admin; the response body. */
async function introspect(ctx: InlineContext): Promise<unknown> {
  const reply = await ctx.anyq("/v1/graphql", { query: getIntrospectionQuery() });
  assertStatus(reply, 200, "introspection");
  return reply.body;
}

/** `check_introspection_result(res, types, node_names)` */
function checkIntrospection(body: unknown, types: string[], nodes: string[]): void {
  const all = (dig(body, "data", "__schema", "types") as Array<{ name: string; fields?: Array<{ name: string }> }>) ?? [];
  const names = new Set(all.map((t) => t.name));
  const root = new Set((all.find((t) => t.name === "query_root")?.fields ?? []).map((f) => f.name));
  const missing = [...types.filter((t) => !names.has(t)), ...nodes.filter((n) => !root.has(n))];
  if (missing.length > 0) throw new InlineFailure(`assert check_introspection_result: missing ${missing.join(", ")}`, { actual: body });
}

/** The class's autouse `transact` fixture around each test. */
function transact(before: (ctx: InlineContext) => Promise<unknown>, after: (ctx: InlineContext) => Promise<unknown>) {
  return (body: InlineTest): InlineTest =>
    async (ctx) => {
      await before(ctx);
      try {
        await body(ctx);
      } finally {
        await after(ctx);
      }
    };
}

function inline(name: string, test: InlineTest, file = "", skip?: string): TestPlan {
  return { name, file, how: "inline", kw: {}, transports: ["http"], inline: test, ...(skip ? { skip } : {}) };
}

/** A check_query_f test under the class's fixture. */
function caseFile(name: string, file: string, around: (t: InlineTest) => InlineTest): TestPlan {
  return inline(
    name,
    around((ctx) => ctx.checkQueryFile(file)),
    file,
  );
}

function classPlan(name: string, folder: string, tests: TestPlan[], mode: ClassPlan["mode"] = "none"): ClassPlan {
  return { folder, name, mode, postgis: false, tests, helpers: { remoteSchemas: true }, env: ENV };
}

const NO_INTROSPECTION_USER = "reads queries/graphql_introspection/introspection_user_role.yaml, which the fixture set does not store";

// --- TestRemoteSchemaBasic ---------------------------------------------------------------------

const basic = transact(
  (ctx) => v1q(ctx, mkAdd("simple 1", `${server()}/hello-graphql`)),
  (ctx) => v1q(ctx, clearMetadata),
);

const firstRemote = async (ctx: InlineContext) => dig(await v1q(ctx, exportMetadata), "remote_schemas", 0);

const testUpdateNoUrlChange: InlineTest = async (ctx) => {
  await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, true, 120));
  const remote = await firstRemote(ctx);
  assertEqual(dig(remote, "name"), "simple 1", "remote_schemas[0].name");
  assertEqual(dig(remote, "definition", "timeout_seconds"), 120, "remote_schemas[0].definition.timeout_seconds");
  assertEqual(dig(remote, "definition", "forward_client_headers"), true, "remote_schemas[0].definition.forward_client_headers");
  await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, false, 60));
};

const testUpdateUrlChange: InlineTest = async (ctx) => {
  await v1q(ctx, mkUpdate("simple 1", `${server()}/user-graphql`, null, true, 80));
  const remote = await firstRemote(ctx);
  assertEqual(dig(remote, "name"), "simple 1", "remote_schemas[0].name");
  assertEqual(dig(remote, "definition", "url"), `${server()}/user-graphql`, "remote_schemas[0].definition.url");
  assertEqual(dig(remote, "definition", "timeout_seconds"), 80, "remote_schemas[0].definition.timeout_seconds");
  assertEqual(dig(remote, "definition", "forward_client_headers"), true, "remote_schemas[0].definition.forward_client_headers");
  await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, false, 60));
};

const testUpdateCustomization: InlineTest = async (ctx) => {
  const customization = {
    type_names: { prefix: "Foo", mapping: { String: "MyString" } },
    field_names: [{ parent_type: "Hello", prefix: "my_", mapping: {} }],
  };
  await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, false, 60, customization));
  const remote = await firstRemote(ctx);
  assertEqual(dig(remote, "definition", "url"), `${server()}/hello-graphql`, "remote_schemas[0].definition.url");
  assertEqual(dig(remote, "definition", "timeout_seconds"), 60, "remote_schemas[0].definition.timeout_seconds");
  assertEqual(dig(remote, "definition", "customization"), customization, "remote_schemas[0].definition.customization");
  checkIntrospection(await introspect(ctx), ["MyString"], ["my_hello"]);
  await ctx.checkQueryFile(`${DIR}/basic_query_customized.yaml`);
  await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, false, 60));
  const after = await firstRemote(ctx);
  if ("customization" in (dig(after, "definition") as object))
    throw new InlineFailure("assert 'customization' not in resp['remote_schemas'][0]['definition']", { actual: after });
};

const testUpdateCustomizationInvalid: InlineTest = async (ctx) => {
  const customization = { type_names: { mapping: { String: "Foo", Hello: "Foo" } } };
  const resp = await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, false, 60, customization), 400);
  assertEqual(
    dig(resp, "error"),
    'Inconsistent object: Type name mappings are not distinct; the following types appear more than once: "Foo"',
    "$.error",
    resp,
  );
  await v1q(ctx, mkUpdate("simple 1", `${server()}/hello-graphql`, null, false, 60));
};

/** add, then check_query_f the file, then remove (the `with_*` tests). */
const addCheckRemove =
  (name: string, path: string, file: string): InlineTest =>
  async (ctx) => {
    await v1q(ctx, mkAdd(name, `${server()}${path}`));
    await ctx.checkQueryFile(file);
    await v1q(ctx, mkDelete(name));
  };

const BASIC_CLASS = classPlan("TestRemoteSchemaBasic", DIR, [
  inline(
    "test_add_schema",
    basic(async (ctx) => assertEqual(dig(await firstRemote(ctx), "name"), "simple 1", "remote_schemas[0].name")),
  ),
  inline("test_update_schema_with_no_url_change", basic(testUpdateNoUrlChange)),
  inline("test_update_schema_with_url_change", basic(testUpdateUrlChange)),
  inline("test_update_schema_with_customization_change", basic(testUpdateCustomization), `${DIR}/basic_query_customized.yaml`),
  inline("test_update_schema_with_customization_change_invalid", basic(testUpdateCustomizationInvalid)),
  inline(
    "test_introspection",
    basic(async (ctx) => checkIntrospection(await introspect(ctx), ["String"], ["hello"])),
  ),
  inline("test_introspection_as_user", async () => {}, "", NO_INTROSPECTION_USER),
  caseFile("test_remote_query", `${DIR}/basic_query.yaml`, basic),
  caseFile("test_remote_subscription", `${DIR}/basic_subscription_not_supported.yaml`, basic),
  inline(
    "test_add_schema_conflicts",
    basic(async (ctx) => {
      const resp = await v1q(ctx, mkAdd("simple 2", `${server()}/hello-graphql`), 400);
      assertEqual(dig(resp, "code"), "unexpected", "$.code", resp);
      assertEqual(dig(resp, "error"), "cannot continue due to new inconsistent metadata", "$.error", resp);
    }),
  ),
  inline(
    "test_remove_schema_error",
    basic(async (ctx) => assertEqual(dig(await v1q(ctx, mkDelete("random name"), 400), "code"), "not-exists", "$.code")),
  ),
  inline(
    "test_reload_remote_schema",
    basic(async (ctx) => {
      await v1q(ctx, mkReload("simple 1"));
    }),
  ),
  inline(
    "test_add_second_remote_schema",
    basic(async (ctx) => {
      await v1q(ctx, mkAdd("my remote", `${server()}/user-graphql`));
      await v1q(ctx, mkDelete("my remote"));
    }),
  ),
  inline(
    "test_json_scalar_dict",
    basic(addCheckRemove("my remote", "/json-scalar-graphql", `${DIR}/json_scalar.yaml`)),
    `${DIR}/json_scalar.yaml`,
  ),
  inline(
    "test_add_remote_schema_with_interfaces",
    basic(addCheckRemove("my remote interface one", "/character-iface-graphql", `${DIR}/character_interface_query.yaml`)),
    `${DIR}/character_interface_query.yaml`,
  ),
  caseFile(
    "test_add_remote_schema_with_interface_err_empty_fields_list",
    `${DIR}/add_remote_schema_with_iface_err_empty_fields_list.yaml`,
    basic,
  ),
  caseFile("test_add_remote_schema_err_unknown_interface", `${DIR}/add_remote_schema_err_unknown_interface.yaml`, basic),
  caseFile("test_add_remote_schema_with_interface_err_missing_field", `${DIR}/add_remote_schema_err_missing_field.yaml`, basic),
  caseFile(
    "test_add_remote_schema_with_interface_err_wrong_field_type",
    `${DIR}/add_remote_schema_with_iface_err_wrong_field_type.yaml`,
    basic,
  ),
  caseFile("test_add_remote_schema_with_interface_err_missing_arg", `${DIR}/add_remote_schema_err_missing_arg.yaml`, basic),
  caseFile("test_add_remote_schema_with_interface_err_wrong_arg_type", `${DIR}/add_remote_schema_iface_err_wrong_arg_type.yaml`, basic),
  caseFile(
    "test_add_remote_schema_with_interface_err_extra_non_null_arg",
    `${DIR}/add_remote_schema_with_iface_err_extra_non_null_arg.yaml`,
    basic,
  ),
  inline(
    "test_add_remote_schema_with_union",
    basic(addCheckRemove("my remote union one", "/union-graphql", `${DIR}/search_union_type_query.yaml`)),
    `${DIR}/search_union_type_query.yaml`,
  ),
  caseFile("test_add_remote_schema_with_union_err_no_member_types", `${DIR}/add_remote_schema_with_union_err_no_member_types.yaml`, basic),
  caseFile("test_add_remote_schema_with_union_err_unkown_types", `${DIR}/add_remote_schema_with_union_err_unknown_types.yaml`, basic),
  caseFile(
    "test_add_remote_schema_with_union_err_subtype_iface",
    `${DIR}/add_remote_schema_with_union_err_member_type_interface.yaml`,
    basic,
  ),
  caseFile("test_add_remote_schema_with_union_err_wrapped_type", `${DIR}/add_remote_schema_with_union_err_wrapped_type.yaml`, basic),
  inline(
    "test_bulk_remove_add_remote_schema",
    basic(async (ctx) => {
      await v1qFile(ctx, `${DIR}/basic_bulk_remove_add.yaml`);
    }),
    `${DIR}/basic_bulk_remove_add.yaml`,
  ),
]);

// --- TestRemoteSchemaBasicExtensions, TestAddRemoteSchemaTbls -----------------------------------

const extensions = transact(
  (ctx) => v1q(ctx, mkAdd("simple 1", `${server()}/hello-graphql-extensions`)),
  (ctx) => v1q(ctx, clearMetadata),
);

const tables = transact(
  (ctx) => v1qFile(ctx, `${DIR}/tbls_setup.yaml`),
  (ctx) => v1qFile(ctx, `${DIR}/tbls_teardown.yaml`),
);

const testBulkTrackConflicting: InlineTest = async (ctx) => {
  await v1q(ctx, {
    type: "run_sql",
    args: { sql: 'CREATE TABLE "user" (id int); CREATE TABLE innocent1 (id int); CREATE TABLE innocent2 (id int);' },
  });
  try {
    const table = (name: string) => ({ table: { schema: "public", name } });
    const reply = await ctx.anyq("/v1/metadata", {
      type: "pg_track_tables",
      args: { tables: [table("user"), table("innocent1"), table("innocent2")], allow_warnings: true },
    });
    assertStatus(reply, 200, "v1metadataq pg_track_tables");
    assertEqual(dig(reply.body, "message"), "success", "$.message", reply.body);
    const warnings = ((reply.body as { warnings?: unknown[] }).warnings ?? []) as unknown[];
    assertEqual(warnings.length, 1, "len(warnings)", reply.body);
    assertEqual(dig(warnings, 0, "code"), "track-table-failed", "$.warnings[0].code", reply.body);
    assertEqual(dig(warnings, 0, "message"), "node user already exists in current graphql schema", "$.warnings[0].message", reply.body);
    for (const name of ["innocent1", "innocent2"]) {
      const untracked = await ctx.anyq("/v1/metadata", { type: "pg_untrack_table", args: table(name) });
      assertStatus(untracked, 200, `pg_untrack_table ${name}`);
    }
  } finally {
    await ctx.anyq("/v1/query", {
      type: "run_sql",
      args: { cascade: true, sql: 'DROP TABLE IF EXISTS "user"; DROP TABLE IF EXISTS innocent1; DROP TABLE IF EXISTS innocent2;' },
    });
  }
};

const testForwardHeaders: InlineTest = async (ctx) => {
  await v1q(
    ctx,
    mkAdd("header-graphql", `${server()}/header-graphql`, { headers: [{ name: "x-hasura-test", value: "abcd" }], client: true }),
  );
  // python-requests sends its own User-Agent, which the remote expects as X-Forwarded-User-Agent.
  const reply = await ctx.anyq(
    "/v1alpha1/graphql",
    { query: "{ wassup }" },
    {
      "x-hasura-test": "xyzz",
      "x-hasura-role": "user",
      "x-hasura-user-id": "abcd1234",
      "content-type": "application/json",
      Authorization: "Bearer abcdef",
      "User-Agent": "python-requests/2.31.0",
    },
  );
  assertStatus(reply, 200, "POST /v1alpha1/graphql");
  assertEqual(dig(reply.body, "data", "wassup"), "Hello world", "$.data.wassup", reply.body);
  await v1q(ctx, mkDelete("header-graphql"));
};

const TABLE_CLASSES = [
  classPlan("TestRemoteSchemaBasicExtensions", DIR, [caseFile("test_remote_query", `${DIR}/basic_query.yaml`, extensions)]),
  classPlan("TestAddRemoteSchemaTbls", DIR, [
    inline(
      "test_add_schema",
      tables(async (ctx) => assertEqual(dig(await firstRemote(ctx), "name"), "simple2-graphql", "remote_schemas[0].name")),
    ),
    inline(
      "test_add_schema_conflicts_with_tables",
      tables(async (ctx) =>
        assertEqual(dig(await v1q(ctx, mkAdd("simple2", `${server()}/hello-graphql`), 400), "code"), "invalid-configuration", "$.code"),
      ),
    ),
    inline(
      "test_add_second_remote_schema",
      tables(async (ctx) => {
        await v1q(ctx, mkAdd("my remote2", `${server()}/country-graphql`));
        await v1q(ctx, mkDelete("my remote2"));
      }),
    ),
    caseFile("test_remote_query", `${DIR}/simple2_query.yaml`, tables),
    caseFile("test_remote_mutation", `${DIR}/simple2_mutation.yaml`, tables),
    inline(
      "test_add_conflicting_table",
      tables(async (ctx) => {
        const resp = await v1qFile(ctx, `${DIR}/create_conflicting_table.yaml`, 400);
        assertEqual(dig(resp, "code"), "remote-schema-conflicts", "$.code", resp);
        await v1qFile(ctx, `${DIR}/drop_user_table.yaml`);
      }),
      `${DIR}/create_conflicting_table.yaml`,
    ),
    inline("test_bulk_track_tables_conflicting_with_remote_schema", tables(testBulkTrackConflicting)),
    inline(
      "test_introspection",
      tables(async (ctx) => checkIntrospection(await introspect(ctx), ["User", "hello"], ["user", "hello"])),
    ),
    inline(
      "test_add_schema_duplicate_name",
      tables(async (ctx) =>
        assertEqual(dig(await v1q(ctx, mkAdd("simple2-graphql", `${server()}/country-graphql`), 400), "code"), "already-exists", "$.code"),
      ),
    ),
    inline(
      "test_add_schema_same_type_containing_same_scalar",
      tables(async (ctx) => {
        await v1qFile(ctx, `${DIR}/person_table.yaml`);
        await v1q(ctx, mkAdd("person-graphql", `${server()}/person-graphql`));
        await v1qFile(ctx, `${DIR}/drop_person_table.yaml`);
        await v1q(ctx, mkDelete("person-graphql"));
      }),
      `${DIR}/person_table.yaml`,
    ),
    inline("test_remote_schema_forward_headers", tables(testForwardHeaders)),
  ]),
];

// --- Response headers, root fields compared, timeout, reload ----------------------------------

const testResponseHeaders: InlineTest = async (ctx) => {
  await v1q(ctx, mkAdd("sample-auth", `${server()}/auth-graphql`));
  try {
    const reply = await ctx.anyq("/v1/graphql", { query: 'query { hello (arg: "me") }' });
    assertStatus(reply, 200, "POST /v1/graphql");
    const cookie = reply.headers["set-cookie"];
    assertEqual(Array.isArray(cookie) ? cookie.join(", ") : cookie, "abcd", "Set-Cookie header", reply.body);
    assertEqual(dig(reply.body, "data", "hello"), "Hello me", "$.data.hello", reply.body);
  } finally {
    await v1q(ctx, clearMetadata);
  }
};

type IntrospectedField = { name: string; type: unknown; args: Array<{ name: string; type: unknown; defaultValue: string | null }> };

/** `compare_default_value`: equal literals, or object literals with the same fields. */
function sameDefault(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  const x = parseValue(a);
  const y = parseValue(b);
  if (print(x) === print(y)) return true;
  if (x.kind !== "ObjectValue" || y.kind !== "ObjectValue") return false;
  const fields = (v: ObjectValueNode) => new Set(v.fields.map((f) => print(f)));
  const [fx, fy] = [fields(x), fields(y)];
  return [...fx].every((f) => fy.has(f)) && [...fy].every((f) => fx.has(f));
}

const testCompareRootFields: InlineTest = async (ctx) => {
  await v1q(ctx, mkAdd("default_value_test", `${server()}/default-value-echo-graphql`));
  try {
    const hasura = await introspect(ctx);
    const response = await fetch(`${server()}/default-value-echo-graphql`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ query: getIntrospectionQuery() }),
    });
    const remote = (await response.json()) as unknown;
    const root = (body: unknown) => {
      const name = dig(body, "data", "__schema", "queryType", "name");
      return ((dig(body, "data", "__schema", "types") as Array<{ name: string; fields: IntrospectedField[] }>).find((t) => t.name === name)
        ?.fields ?? []) as IntrospectedField[];
    };
    const ours = root(hasura);
    for (const fieldR of root(remote)) {
      const fieldH = ours.find((f) => f.name === fieldR.name);
      if (!fieldH)
        throw new InlineFailure(`Field ${fieldR.name} in the remote shema root query type not found in Hasura schema`, { actual: hasura });
      assertEqual(fieldH.type, fieldR.type, `type of ${fieldR.name}`);
      for (const argR of fieldR.args) {
        const argH = fieldH.args.find((a) => a.name === argR.name);
        if (!argH)
          throw new InlineFailure(`Argument ${fieldR.name}(${argR.name}:) in the remote schema root query type not found in Hasura schema`);
        assertEqual(argH.type, argR.type, `type of ${fieldR.name}(${argR.name}:)`);
        if (!sameDefault(argR.defaultValue, argH.defaultValue))
          throw new InlineFailure(`default value of ${fieldR.name}(${argR.name}:) differs`, {
            expected: argR.defaultValue,
            actual: argH.defaultValue,
          });
      }
    }
  } finally {
    await v1q(ctx, mkDelete("default_value_test"));
  }
};

const testTimeout: InlineTest = async (ctx) => {
  await v1q(ctx, mkAdd("simple 1", "{{REMOTE_SCHEMAS_WEBHOOK_DOMAIN}}/hello-graphql", { timeout: 5 }));
  try {
    const resp = await ctx.checkQuery(ctx.conf(`${DIR}/basic_timeout_query.yaml`) as Parameters<InlineContext["checkQuery"]>[0]);
    assertEqual(dig(resp, "errors", 0, "extensions", "internal", "type"), "http_exception", "$.errors[0].extensions.internal.type", resp);
    assertEqual(
      dig(resp, "errors", 0, "extensions", "internal", "message"),
      "Response timeout",
      "$.errors[0].extensions.internal.message",
      resp,
    );
    assertEqual(
      dig(resp, "errors", 0, "message"),
      'HTTP exception occurred while sending the request to "{{REMOTE_SCHEMAS_WEBHOOK_DOMAIN}}/hello-graphql"',
      "$.errors[0].message",
      resp,
    );
    await ctx.sleep(6000);
  } finally {
    await v1q(ctx, clearMetadata);
  }
};

const testReload: InlineTest = async (ctx) => {
  const gql = currentGqlServer();
  await v1q(ctx, mkAdd("simple 1", `${server()}/hello-graphql`));
  await gql.stop();
  try {
    const resp = await v1q(ctx, { type: "reload_metadata", args: { reload_remote_schemas: true } });
    assertEqual(dig(resp, "is_consistent"), false, "$.is_consistent", resp);
    assertEqual(dig(resp, "inconsistent_objects", 0, "type"), "remote_schema", "$.inconsistent_objects[0].type", resp);
  } finally {
    await gql.start();
  }
  await v1q(ctx, mkReload("simple 1"));
  const report = await v1q(ctx, { type: "get_inconsistent_metadata", args: {} });
  assertEqual(dig(report, "is_consistent"), true, "$.is_consistent", report);
  await v1q(ctx, mkDelete("simple 1"));
};

const OTHER_CLASSES = [
  classPlan("TestRemoteSchemaResponseHeaders", DIR, [inline("test_response_headers_from_remote", testResponseHeaders)]),
  classPlan("TestAddRemoteSchemaCompareRootQueryFields", DIR, [
    inline("test_schema_check_arg_default_values_and_field_and_arg_types", testCompareRootFields),
  ]),
  classPlan("TestRemoteSchemaTimeout", DIR, [inline("test_remote_query_timeout", testTimeout, `${DIR}/basic_timeout_query.yaml`)]),
  classPlan("TestRemoteSchemaReload", DIR, [inline("test_inconsistent_remote_schema_reload_metadata", testReload)]),
];

// --- The validation classes --------------------------------------------------------------------

const customized = (customization: unknown, path = "/character-iface-graphql", name = "character-foo") =>
  transact(
    (ctx) => v1q(ctx, mkAdd(name, `${server()}${path}`, { customization })),
    (ctx) => v1q(ctx, clearMetadata),
  );

const prefixFoo = { type_names: { prefix: "Foo", mapping: {} } };
const ALL_THE_THINGS = {
  root_fields_namespace: "star_wars",
  type_names: { prefix: "Foo", suffix: "_x", mapping: { Droid: "Android", Int: "MyInt" } },
  field_names: [
    { parent_type: "Character", prefix: "foo_", suffix: "_f", mapping: { id: "ident" } },
    { parent_type: "Human", mapping: { id: "ident", name: "foo_name_f", droid: "android" } },
    { parent_type: "Droid", prefix: "foo_", suffix: "_f", mapping: { id: "ident" } },
    { parent_type: "CharacterIFaceQuery", prefix: "super_" },
  ],
};
const none = (t: InlineTest) => t;

const typePrefix = customized(prefixFoo, "/user-graphql", "simple 2");

const testRequestPayload: InlineTest = async (ctx) => {
  const resp = await ctx.checkQuery(ctx.conf(`${DIR}/basic_query_with_op_name.yaml`) as Parameters<InlineContext["checkQuery"]>[0]);
  assertEqual(dig(resp, "data", "hello", "operationName"), "HelloMe", "$.data.hello.operationName", resp);
};

const VALIDATION_CLASSES = [
  classPlan(
    "TestValidateRemoteSchemaQuery",
    VALIDATION,
    [
      caseFile("test_remote_schema_argument_validation", `${VALIDATION}/argument_validation.yaml`, none),
      caseFile("test_remote_schema_field_validation", `${VALIDATION}/field_validation.yaml`, none),
    ],
    "class",
  ),
  classPlan("TestRemoteSchemaTypePrefix", DIR, [
    inline(
      "test_add_schema",
      typePrefix(async (ctx) => {
        const remotes = dig(await v1q(ctx, exportMetadata), "remote_schemas") as Array<{ name: string }>;
        assertEqual(remotes.filter((r) => r.name === "simple 2").length, 1, "len(found)");
      }),
    ),
    inline(
      "test_introspection",
      typePrefix(async (ctx) =>
        checkIntrospection(
          await introspect(ctx),
          ["FooUser", "FooCreateUser", "FooCreateUserInputObject", "FooUserDetailsInput"],
          ["user", "allUsers"],
        ),
      ),
    ),
  ]),
  classPlan("TestValidateRemoteSchemaTypePrefixQuery", VALIDATION, [
    caseFile("test_remote_schema_type_prefix_validation", `${VALIDATION}/type_prefix_validation.yaml`, customized(prefixFoo)),
  ]),
  classPlan("TestValidateRemoteSchemaFieldPrefixQuery", VALIDATION, [
    caseFile(
      "test_remote_schema_field_prefix_validation",
      `${VALIDATION}/field_prefix_validation.yaml`,
      customized({ field_names: ["Character", "Human", "Droid"].map((t) => ({ parent_type: t, prefix: "foo_" })) }),
    ),
  ]),
  classPlan("TestValidateRemoteSchemaCustomization", VALIDATION, [
    caseFile("test_remote_schema_interface_field_validation", `${VALIDATION}/interface_field_validation.yaml`, none),
  ]),
  classPlan("TestValidateRemoteSchemaNamespaceQuery", VALIDATION, [
    caseFile(
      "test_remote_schema_namespace_validation",
      `${VALIDATION}/namespace_validation.yaml`,
      customized({ root_fields_namespace: "foo" }),
    ),
    caseFile(
      "test_multiple_remote_schema_with_namespace",
      `${VALIDATION}/multiple_remote_schema_with_namespace.yaml`,
      customized({ root_fields_namespace: "foo" }),
    ),
  ]),
  classPlan("TestValidateRemoteSchemaCustomizeAllTheThings", VALIDATION, [
    caseFile("test_remote_schema_customize_all_the_things", `${VALIDATION}/customize_all_the_things.yaml`, customized(ALL_THE_THINGS)),
  ]),
  classPlan("TestRemoteSchemaRequestPayload", DIR, [
    inline(
      "test_remote_schema_operation_name_in_response",
      customized(null, "/hello-echo-request-graphql", "echo request")(testRequestPayload),
      `${DIR}/basic_query_with_op_name.yaml`,
    ),
  ]),
];

/**
 * TestRemoteSchemaQueriesOverWebsocket: tbls_setup.yaml and the class's Apollo client initialised as
 * admin before each test, tbls_teardown.yaml and clear_metadata after; each test one operation over
 * the socket, its first `data` message read, then stopped.
 */
const overWebsocket = transact(
  async (ctx) => {
    await v1qFile(ctx, `${DIR}/tbls_setup.yaml`);
    await ctx.ws("apollo").initAsAdmin();
  },
  async (ctx) => {
    await v1qFile(ctx, `${DIR}/tbls_teardown.yaml`);
    await v1q(ctx, clearMetadata);
  },
);

/** send_query, then `ev = next(resp)` asserted to be `data` for this id; stopped after `check`. */
function overSocket(query: string, check: (payload: unknown, ev: unknown) => void): InlineTest {
  return overWebsocket(async (ctx) => {
    const ws = ctx.ws("apollo");
    const id = `q${Math.random().toString(36).slice(2, 8)}`;
    const next = await ws.sendQuery({ query }, id, 5000);
    try {
      const ev = await next();
      if (ev.type !== "data" || ev.id !== id) throw new InlineFailure(`expected a data message for ${id}`, { actual: ev });
      check(ev.payload, ev);
    } finally {
      await ws.stop(id);
    }
  });
}

const WEBSOCKET_CLASS = classPlan("TestRemoteSchemaQueriesOverWebsocket", DIR, [
  inline(
    "test_remote_query",
    overSocket("query { user(id: 2) { id username } }", (payload, ev) =>
      assertEqual(dig(payload, "data", "user", "username"), "john", "$.payload.data.user.username", ev),
    ),
  ),
  inline(
    "test_remote_query_error",
    overSocket("query { user(id: 2) { generateError username } }", (payload, ev) =>
      assertEqual(
        dig(payload, "errors", 0, "message"),
        'Cannot query field "generateError" on type "User".',
        "$.payload.errors[0].message",
        ev,
      ),
    ),
  ),
  inline(
    "test_remote_mutation",
    overSocket('mutation { createUser(id: 42, username: "foobar") { user { id username } } }', (payload, ev) => {
      assertEqual(dig(payload, "data", "createUser", "user", "id"), 42, "$.payload.data.createUser.user.id", ev);
      assertEqual(dig(payload, "data", "createUser", "user", "username"), "foobar", "$.payload.data.createUser.user.username", ev);
    }),
  ),
]);

const CLASSES: ClassPlan[] = [
  BASIC_CLASS,
  ...TABLE_CLASSES,
  WEBSOCKET_CLASS,
  ...OTHER_CLASSES,
  ...VALIDATION_CLASSES,
  ...REMOTE_SCHEMA_PERMISSION_CLASSES,
];

const STATE_FILES = /\/(setup|teardown|schema_setup|schema_teardown|values_setup|values_teardown)\.yaml$/;

/** The area's folders no test_schema_stitching.py class uses, and why. */
const OTHER_MODULES: Record<string, string> = {
  "queries/remote_schemas/permissions/inheritance": "used by no test module of tests-py at the source commit",
  "queries/remote_schemas/validate_data_errors_prioritization":
    "no stored test module reads it (its remote would be remote_schemas/nodejs/returns_data_and_errors.js)",
};

/** The remote schemas area as folder plans, in upstream class order. */
export function loadRemoteSchemasPlan(): FolderPlan[] {
  const manifest = JSON.parse(readFileSync(join(FIXTURE_ROOT, "manifest.json"), "utf8")) as {
    additional_areas?: Record<string, { path: string }[]>;
  };
  const files = (manifest.additional_areas?.["remote schemas and remote relationships"] ?? []).map((f) => f.path);
  const referenced = new Set([...CLASSES.flatMap((c) => c.tests.map((t) => t.file)), ...REMOTE_SCHEMA_PERMISSION_FILES]);
  const folders = new Map<string, FolderPlan>();
  const folderOf = (folder: string): FolderPlan => {
    let plan = folders.get(folder);
    if (!plan) {
      plan = { folder, priority: "remote_schemas", area: "remote_schemas", subscription: false, classes: [], unreferenced: [] };
      folders.set(folder, plan);
    }
    return plan;
  };
  for (const cls of CLASSES) folderOf(cls.folder).classes.push(cls);
  for (const file of files) {
    if (!file.startsWith("queries/") || !file.endsWith(".yaml") || STATE_FILES.test(file) || referenced.has(file)) continue;
    // remote-relationships-plan.ts runs and reports that folder.
    if (file.startsWith(`${REMOTE_RELATIONSHIPS_DIR}/`)) continue;
    const top = Object.keys(OTHER_MODULES).find((folder) => file.startsWith(`${folder}/`));
    const plan = folderOf(top ?? file.slice(0, file.lastIndexOf("/")));
    plan.unreferenced.push(file);
    if (top) plan.unreferencedReason = OTHER_MODULES[top];
  }
  return [...folders.values()];
}
