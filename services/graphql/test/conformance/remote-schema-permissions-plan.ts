/**
 * hasura/graphql-engine server/tests-py test_remote_schema_permissions.py as a run plan, class by
 * class and test by test in upstream order. The module runs the engine with
 * HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS=true and its three Node remotes
 * (remote-schema-perms-server.ts, GRAPHQL_SERVICE_1..3). `per_method_tests_db_state` wraps each
 * test in the folder's setup.yaml / teardown.yaml (the "method" state mode); the relationship
 * class wraps its tests in its own `transact` fixture. Not run: the Pro class (response caching
 * is a Hasura Enterprise feature).
 */
import { type ClassPlan, loadFixture, type TestPlan } from "./fixtures.js";
import { assertEqual, assertStatus, dig, type InlineContext, type InlineTest } from "./inline.js";

const DIR = "queries/remote_schemas/permissions";

/** Every file the module's tests POST or check (the runner reports the folder's others as unreferenced). */
export const REMOTE_SCHEMA_PERMISSION_FILES = new Set<string>();
const uses = (file: string) => {
  REMOTE_SCHEMA_PERMISSION_FILES.add(`${DIR}/${file}`);
  return file;
};

const ENV = { HASURA_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS: "true", HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS: "true" };

/** `hge_ctx.v1metadataq_f(file, expected_status_code)` (and v1q_f on /v1/query): the file POSTed, its status asserted. */
async function post(ctx: InlineContext, url: string, file: string, expected = 200): Promise<unknown> {
  const reply = await ctx.anyq(url, loadFixture(file));
  assertStatus(reply, expected, `${url} ${file}`);
  return reply.body;
}

const metadataFile = (ctx: InlineContext, file: string, expected = 200) => post(ctx, "/v1/metadata", `${DIR}/${file}`, expected);
const queryFile = (ctx: InlineContext, file: string) => post(ctx, "/v1/query", `${DIR}/${file}`);
const check = (ctx: InlineContext, file: string) => ctx.checkQueryFile(`${DIR}/${file}`);

function test(name: string, body: InlineTest, file = "", skip?: string): TestPlan {
  if (file) uses(file);
  return { name, file: file ? `${DIR}/${file}` : "", how: "inline", kw: {}, transports: ["http"], inline: body, ...(skip ? { skip } : {}) };
}

function classPlan(name: string, folder: string, tests: TestPlan[], mode: ClassPlan["mode"]): ClassPlan {
  return { folder, name, mode, postgis: false, tests, helpers: { remoteSchemaPerms: true }, env: ENV };
}

/** A test that adds a permission file, then checks a case file. */
function addThenCheck(name: string, add: string, file: string): TestPlan {
  uses(add);
  return test(
    name,
    async (ctx) => {
      await metadataFile(ctx, add);
      await check(ctx, file);
    },
    file,
  );
}

const checkOnly = (name: string, file: string) => test(name, (ctx) => check(ctx, file), uses(file));

uses("update_remote_schema/revert_to_original_config.yaml");
uses("remote_relationships/setup_with_permissions.yaml");
uses("remote_relationships/teardown.yaml");

const testUpdateWithPermissions: InlineTest = async (ctx) => {
  await metadataFile(ctx, "add_permission_with_valid_subset_of_fields.yaml");
  await metadataFile(ctx, "update_remote_schema/update_schema.yaml");
  const body = (await ctx.anyq("/v1/metadata", { type: "export_metadata", args: {} })).body;
  assertEqual(dig(body, "remote_schemas", 0, "definition", "url"), "{{GRAPHQL_SERVICE_2}}", "remote_schemas[0].definition.url");
  assertEqual(dig(body, "remote_schemas", 0, "comment"), "this is from update query", "remote_schemas[0].comment", body);
  assertEqual(dig(body, "remote_schemas", 0, "definition", "timeout_seconds"), 120, "remote_schemas[0].definition.timeout_seconds", body);
  await metadataFile(ctx, "update_remote_schema/revert_to_original_config.yaml");
};

const ADD = classPlan(
  "TestAddRemoteSchemaPermissions",
  DIR,
  [
    test(
      "test_add_permission_with_valid_subset_of_fields",
      (ctx) => metadataFile(ctx, "add_permission_with_valid_subset_of_fields.yaml").then(() => undefined),
      "add_permission_with_valid_subset_of_fields.yaml",
    ),
    test("test_update_remote_schema_details_with_permissions_set", testUpdateWithPermissions, "update_remote_schema/update_schema.yaml"),
    test(
      "test_update_remote_schema_details_with_permissions_set_with_error",
      async (ctx) => {
        await metadataFile(ctx, "add_permission_with_valid_subset_of_fields.yaml");
        await metadataFile(ctx, "update_remote_schema/update_schema_error.yaml", 400);
      },
      "update_remote_schema/update_schema_error.yaml",
    ),
    test(
      "test_add_permission_with_valid_subset_of_arguments",
      (ctx) => metadataFile(ctx, "add_permission_with_valid_subset_of_arguments.yaml").then(() => undefined),
      "add_permission_with_valid_subset_of_arguments.yaml",
    ),
    checkOnly("test_role_based_schema_enums_validation", "role_based_schema_enum_validations.yaml"),
    checkOnly("test_role_based_schema_scalars_validation", "role_based_schema_scalar_validation.yaml"),
    checkOnly("test_role_based_schema_interface_validation", "role_based_schema_interface_validation.yaml"),
    checkOnly("test_role_based_schema_union_validation", "role_based_schema_union_validation.yaml"),
    checkOnly("test_role_based_schema_input_object_validation", "role_based_schema_input_object_validation.yaml"),
    checkOnly("test_role_based_schema_object_validation", "role_based_schema_object_validation.yaml"),
    checkOnly("test_preset_directive_validation", "argument_preset_validation.yaml"),
  ],
  "method",
);

const EXECUTION = classPlan(
  "TestRemoteSchemaPermissionsExecution",
  DIR,
  [
    addThenCheck(
      "test_execution_with_subset_of_fields_exposed_to_role",
      "add_permission_with_valid_subset_of_fields.yaml",
      "execution_with_partial_fields_exposed_to_role.yaml",
    ),
    addThenCheck(
      "test_execution_with_subset_of_arguments_exposed_to_role",
      "add_permission_with_valid_subset_of_arguments.yaml",
      "execution_with_partial_args_exposed_to_role.yaml",
    ),
    checkOnly("test_execution_with_unknown_role", "unknown_role_execution.yaml"),
  ],
  "method",
);

const PRO = classPlan(
  "TestRemoteSchemaPermissionsExecutionPro",
  DIR,
  [
    test(
      "test_execution_with_subset_of_fields_exposed_to_role_with_caching",
      async () => {},
      "execution_with_partial_fields_exposed_to_role_cached.yaml",
      "pro_tests_fixtures / enterprise_edition: response caching is a Hasura Enterprise feature",
    ),
  ],
  "method",
);

const CUSTOMIZED = classPlan(
  "TestCustomizedRemoteSchemaPermissionsExecution",
  `${DIR}/schema_customization`,
  [
    addThenCheck(
      "test_execution_with_subset_of_fields_exposed_to_role",
      "schema_customization/add_permission_with_valid_subset_of_fields.yaml",
      "schema_customization/execution_with_partial_fields_exposed_to_role.yaml",
    ),
    addThenCheck(
      "test_execution_with_subset_of_arguments_exposed_to_role",
      "schema_customization/add_permission_with_valid_subset_of_arguments.yaml",
      "schema_customization/execution_with_partial_args_exposed_to_role.yaml",
    ),
  ],
  "method",
);

const PRESETS = classPlan(
  "TestRemoteSchemaPermissionsArgumentPresets",
  `${DIR}/argument_presets`,
  [
    addThenCheck(
      "test_execution_with_static_argument_preset",
      "argument_presets/add_permission_with_static_preset_argument.yaml",
      "argument_presets/execution_with_static_preset_args.yaml",
    ),
    addThenCheck(
      "test_execution_with_session_argument_preset",
      "argument_presets/add_permission_with_session_preset_argument.yaml",
      "argument_presets/execution_with_session_preset_args.yaml",
    ),
  ],
  "method",
);

/** TestRemoteRelationshipPermissions's autouse `transact`: setup_with_permissions.yaml before each test, teardown.yaml after. */
const transact =
  (body: InlineTest): InlineTest =>
  async (ctx) => {
    await queryFile(ctx, "remote_relationships/setup_with_permissions.yaml");
    try {
      await body(ctx);
    } finally {
      await queryFile(ctx, "remote_relationships/teardown.yaml");
    }
  };

function relTest(name: string, setups: string[], checks: string[]): TestPlan {
  for (const f of [...setups, ...checks]) uses(`remote_relationships/${f}`);
  return test(
    name,
    transact(async (ctx) => {
      for (const s of setups) await queryFile(ctx, `remote_relationships/${s}`);
      for (const c of checks) await check(ctx, `remote_relationships/${c}`);
    }),
    `remote_relationships/${checks[0]}`,
  );
}

const RELATIONSHIPS = classPlan(
  "TestRemoteRelationshipPermissions",
  `${DIR}/remote_relationships`,
  [
    relTest(
      "test_basic_relationship",
      ["setup_remote_rel_basic.yaml", "setup_remote_rel_basic_user.yaml"],
      [
        "basic_remote_relationship_without_remote_schema_permissions_configured.yaml",
        "basic_remote_relationship_with_remote_schema_permissions_configured.yaml",
      ],
    ),
    relTest("test_complex_multiple_joins", ["setup_multiple_remote_rel.yaml"], ["complex_multiple_joins.yaml"]),
    relTest(
      "test_remote_relationship_with_field_containing_preset_argument",
      ["setup_remote_rel_basic.yaml"],
      ["derive_remote_relationship_with_joining_field_containing_preset.yaml"],
    ),
    relTest(
      "test_partial_arguments_of_remote_relationship_from_preset",
      ["setup_remote_rel_messages_single_field.yaml"],
      ["partial_arguments_from_preset.yaml"],
    ),
  ],
  "none",
);

/** The module's classes, in upstream order. */
export const REMOTE_SCHEMA_PERMISSION_CLASSES: ClassPlan[] = [ADD, EXECUTION, PRO, CUSTOMIZED, PRESETS, RELATIONSHIPS];
