/**
 * The remote relationships area: hasura/graphql-engine server/tests-py test_remote_relationships.py
 * as a run plan, class by class and test by test in upstream order. Every class gets the module's
 * `graphql_service` fixture (remote-relationships-server.ts, GRAPHQL_SERVICE_HANDLER); the classes
 * marked `use_test_fixtures` also get `per_method_tests_db_state` (the folder's setup.yaml and
 * teardown.yaml around each test), the others their own autouse `transact` fixture. Each test body
 * (a sequence of `hge_ctx.v1q_f` and `check_query_f` calls, and one Python check) is ported step
 * by step. Not run: TestWithRelay (the relay endpoint /v1beta1/relay is not served), and the
 * upstream tests that are commented out (their case files are reported unreferenced).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ClassPlan, FIXTURE_ROOT, type FolderPlan, loadFixture, type TestPlan } from "./fixtures.js";
import { assertStatus, dig, type InlineContext, InlineFailure, type InlineTest } from "./inline.js";

const DIR = "queries/remote_schemas/remote_relationships";
const CUSTOMIZATION = `${DIR}/schema_customization`;

/** One call of a test body: `hge_ctx.v1q_f(file, expected_status_code)`, `check_query_f(file)`, or Python code. */
type Step = { v1q: string; status?: number } | { check: string } | { run: InlineTest };

const v1qF = (file: string, status = 200): Step => ({ v1q: file, status });
const check = (file: string): Step => ({ check: file });

async function runStep(ctx: InlineContext, dir: string, step: Step): Promise<void> {
  if ("run" in step) return step.run(ctx);
  if ("check" in step) return ctx.checkQueryFile(`${dir}/${step.check}`);
  const reply = await ctx.anyq("/v1/query", loadFixture(`${dir}/${step.v1q}`));
  assertStatus(reply, step.status ?? 200, `v1q_f ${step.v1q}`);
}

/** A class's autouse `transact` fixture: its setup files before each test, its teardown files after. */
interface Transact {
  setup: string[];
  teardown: string[];
}

interface TestSpec {
  name: string;
  steps: Step[];
  skip?: string;
}

interface ClassSpec {
  name: string;
  dir: string;
  /** `use_test_fixtures`: per_method_tests_db_state (the dir's setup.yaml / teardown.yaml around each test). */
  perMethod?: boolean;
  transact?: Transact;
  tests: TestSpec[];
}

/** The files a class reads (its transact files and the tests' v1q_f / check_query_f files). */
function filesOf(spec: ClassSpec): string[] {
  const own = [...(spec.transact?.setup ?? []), ...(spec.transact?.teardown ?? [])];
  for (const t of spec.tests) for (const s of t.steps) if (!("run" in s)) own.push("check" in s ? s.check : s.v1q);
  return own.map((f) => `${spec.dir}/${f}`);
}

function testPlan(spec: ClassSpec, test: TestSpec): TestPlan {
  const body: InlineTest = async (ctx) => {
    for (const step of test.steps) await runStep(ctx, spec.dir, step);
  };
  const around: InlineTest = spec.transact
    ? async (ctx) => {
        const { setup, teardown } = spec.transact as Transact;
        for (const f of setup) await runStep(ctx, spec.dir, v1qF(f));
        try {
          await body(ctx);
        } finally {
          for (const f of teardown) await runStep(ctx, spec.dir, v1qF(f));
        }
      }
    : body;
  const checked = test.steps.find((s): s is { check: string } => "check" in s);
  return {
    name: test.name,
    file: checked ? `${spec.dir}/${checked.check}` : "",
    how: "inline",
    kw: {},
    transports: ["http"],
    inline: around,
    ...(test.skip ? { skip: test.skip } : {}),
  };
}

function classPlan(spec: ClassSpec): ClassPlan {
  return {
    folder: spec.dir,
    name: spec.name,
    mode: spec.perMethod ? "method" : "none",
    postgis: false,
    tests: spec.tests.map((t) => testPlan(spec, t)),
    helpers: { remoteRelationships: true },
    env: ENV,
  };
}

/** TestDeleteRemoteRelationship._check_no_remote_relationships: the table keeps no `event_triggers`. */
const checkNoRemoteRelationships =
  (table: string): InlineTest =>
  async (ctx) => {
    const reply = await ctx.anyq("/v1/query", { type: "export_metadata", args: {} });
    assertStatus(reply, 200, "v1q export_metadata");
    const tables = dig(reply.body, "sources", 0, "tables") as unknown[];
    for (const t of tables) {
      if (dig(t, "table", "name") !== table) continue;
      if (t !== null && typeof t === "object" && "event_triggers" in t)
        throw new InlineFailure(`assert 'event_triggers' not in t (table ${table})`, { actual: reply.body });
    }
  };

/**
 * tests-py runs the engine with HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS at its default (true): the
 * query_with_errors_* cases read the remote's errors in `extensions.internal`.
 */
const ENV = { HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS: "true" };

const RELAY = "the relay endpoint (/v1beta1/relay) is not served by this engine";

const CLASSES: ClassSpec[] = [
  {
    name: "TestCreateRemoteRelationship",
    dir: DIR,
    perMethod: true,
    tests: [
      {
        name: "test_create_valid",
        steps: [
          "setup_remote_rel_basic.yaml",
          "setup_remote_rel_nested_args.yaml",
          "setup_remote_rel_array.yaml",
          "setup_remote_rel_nested_fields.yaml",
          "setup_remote_rel_multiple_fields.yaml",
          "setup_remote_rel_joining_singleton_with_array.yaml",
          "setup_remote_rel_with_interface.yaml",
          "setup_remote_rel_with_union.yaml",
          "setup_remote_rel_with_enum.yaml",
          "setup_remote_rel_computed_fields.yaml",
        ].map((f) => v1qF(f)),
      },
      {
        name: "test_create_invalid",
        steps: [
          "setup_invalid_remote_rel_hasura_field.yaml",
          "setup_invalid_remote_rel_literal.yaml",
          "setup_invalid_remote_rel_variable.yaml",
          "setup_invalid_remote_rel_remote_args.yaml",
          "setup_invalid_remote_rel_remote_schema.yaml",
          "setup_invalid_remote_rel_remote_field.yaml",
          "setup_invalid_remote_rel_nested_args.yaml",
          "setup_invalid_remote_rel_array.yaml",
          "setup_invalid_remote_rel_computed_field.yaml",
        ].map((f) => v1qF(f, 400)),
      },
      {
        name: "test_generation",
        steps: [v1qF("setup_remote_rel_basic.yaml"), v1qF("setup_remote_rel_nested_args.yaml"), check("select_remote_fields.yaml")],
      },
    ],
  },
  {
    name: "TestDeleteRemoteRelationship",
    dir: DIR,
    perMethod: true,
    tests: [
      { name: "test_delete", steps: [v1qF("setup_remote_rel_basic.yaml"), v1qF("delete_remote_rel.yaml")] },
      {
        name: "test_delete_dependencies",
        steps: [v1qF("setup_remote_rel_basic.yaml"), v1qF("remove_remote_schema.yaml", 400), v1qF("delete_remote_rel.yaml")],
      },
      {
        name: "test_deleting_column_with_remote_relationship_dependency",
        steps: [check("drop_col_with_remote_rel_dependency.yaml"), { run: checkNoRemoteRelationships("profiles") }],
      },
      {
        name: "test_deleting_table_with_remote_relationship_dependency",
        steps: [check("drop_table_with_remote_rel_dependency.yaml"), { run: checkNoRemoteRelationships("profiles") }],
      },
    ],
  },
  {
    name: "TestUpdateRemoteRelationship",
    dir: DIR,
    perMethod: true,
    tests: [
      {
        name: "test_update",
        steps: [
          v1qF("setup_remote_rel_basic.yaml"),
          check("basic_relationship.yaml"),
          v1qF("update_remote_rel_basic.yaml"),
          check("update_basic_query.yaml"),
        ],
      },
    ],
  },
  {
    name: "TestExecution",
    dir: DIR,
    perMethod: true,
    tests: [
      { name: "test_basic_relationship", steps: [v1qF("setup_remote_rel_basic.yaml"), check("basic_relationship.yaml")] },
      {
        name: "test_basic_relationship_on_object",
        steps: [
          v1qF("setup_remote_rel_basic.yaml"),
          check("query_with_object_rel.yaml"),
          v1qF("setup_remote_rel_nested_args.yaml"),
          check("query_with_arr_rel.yaml"),
        ],
      },
      { name: "test_regression_7172", steps: [v1qF("setup_regression_7172.yaml"), check("regression_7172.yaml")] },
      {
        name: "test_basic_relationship_joining_singleton_to_array",
        steps: [v1qF("setup_remote_rel_joining_singleton_with_array.yaml"), check("basic_relationship_joining_singleton_with_array.yaml")],
      },
      { name: "test_basic_array", steps: [v1qF("setup_remote_rel_array.yaml"), check("basic_array.yaml")] },
      {
        name: "test_basic_array_without_join_key",
        steps: [v1qF("setup_remote_rel_array.yaml"), check("basic_array_without_join_key.yaml")],
      },
      { name: "test_multiple_fields", steps: [v1qF("setup_remote_rel_multiple_fields.yaml"), check("basic_multiple_fields.yaml")] },
      {
        name: "test_remote_join_fields_with_null_joining_fields",
        steps: [v1qF("setup_remote_rel_null_joining_fields.yaml"), check("remote_rel_with_null_joining_fields.yaml")],
      },
      { name: "test_nested_fields", steps: [v1qF("setup_remote_rel_nested_fields.yaml"), check("basic_nested_fields.yaml")] },
      { name: "test_arguments", steps: [v1qF("setup_remote_rel_nested_args.yaml"), check("query_with_arguments.yaml")] },
      { name: "test_with_variables", steps: [v1qF("setup_remote_rel_nested_args.yaml"), check("remote_rel_variables.yaml")] },
      {
        name: "test_with_fragments",
        steps: [check("mixed_fragments.yaml"), v1qF("setup_remote_rel_basic.yaml"), check("remote_rel_fragments.yaml")],
      },
      {
        name: "test_with_interface",
        steps: [v1qF("setup_remote_rel_with_interface.yaml"), check("mixed_interface.yaml"), check("remote_rel_interface.yaml")],
      },
      { name: "test_with_union", steps: [v1qF("setup_remote_rel_with_union.yaml"), check("remote_rel_union.yaml")] },
      { name: "test_with_enum", steps: [v1qF("setup_remote_rel_with_enum.yaml"), check("remote_rel_enum.yaml")] },
      {
        name: "test_with_errors",
        steps: [
          v1qF("setup_remote_rel_basic.yaml"),
          check("query_with_errors_obj.yaml"),
          v1qF("setup_remote_rel_nested_args.yaml"),
          check("query_with_errors_arr.yaml"),
        ],
      },
      { name: "test_with_aliased_remote_join_keys", steps: [v1qF("setup_remote_rel_basic.yaml"), check("basic_relationship_alias.yaml")] },
      { name: "test_with_scalar_relationship", steps: [v1qF("setup_remote_rel_scalar.yaml"), check("query_with_scalar_rel.yaml")] },
      {
        name: "test_renaming_column_with_remote_relationship_dependency",
        steps: [v1qF("setup_remote_rel_nested_args.yaml"), check("rename_col_with_remote_rel_dependency.yaml")],
      },
      {
        name: "test_renaming_table_with_remote_relationship_dependency",
        steps: [v1qF("setup_remote_rel_nested_args.yaml"), check("rename_table_with_remote_rel_dependency.yaml")],
      },
      {
        name: "test_remote_joins_in_mutation_response",
        steps: [v1qF("setup_remote_rel_basic_with_authors.yaml"), check("mutation_output_with_remote_join_fields.yaml")],
      },
    ],
  },
  {
    name: "TestDeepExecution",
    dir: DIR,
    transact: { setup: ["setup.yaml", "setup_address.yaml"], teardown: ["teardown_address.yaml", "teardown.yaml"] },
    tests: [
      { name: "test_with_deep_object", steps: [v1qF("setup_remote_rel_basic.yaml"), check("query_with_deep_nesting_obj.yaml")] },
      { name: "test_with_deep_array", steps: [v1qF("setup_remote_rel_nested_args.yaml"), check("query_with_deep_nesting_arr.yaml")] },
      {
        name: "test_with_complex_path_object",
        steps: [
          v1qF("setup_remote_rel_basic.yaml"),
          check("query_with_deep_nesting_complex_path_obj.yaml"),
          check("query_with_deep_nesting_complex_path_obj2.yaml"),
        ],
      },
      {
        name: "test_with_complex_path_array",
        steps: [
          v1qF("setup_remote_rel_basic.yaml"),
          check("query_with_deep_nesting_complex_path_arr.yaml"),
          check("query_with_deep_nesting_complex_path_arr2.yaml"),
        ],
      },
    ],
  },
  {
    name: "TestExecutionWithPermissions",
    dir: DIR,
    transact: { setup: ["setup_with_permissions.yaml"], teardown: ["teardown.yaml"] },
    tests: [
      {
        name: "test_basic_relationship",
        steps: [
          v1qF("setup_remote_rel_basic.yaml"),
          check("basic_relationship_with_permissions1.yaml"),
          check("basic_relationship_with_permissions2.yaml"),
        ],
      },
      { name: "test_complex_multiple_joins", steps: [v1qF("setup_multiple_remote_rel.yaml"), check("complex_multiple_joins.yaml")] },
    ],
  },
  {
    name: "TestWithRelay",
    dir: DIR,
    perMethod: true,
    tests: [{ name: "test_with_relay_fail", steps: [v1qF("setup_remote_rel_basic.yaml"), check("with_relay.yaml")], skip: RELAY }],
  },
  {
    name: "TestExecutionWithCustomization",
    dir: CUSTOMIZATION,
    perMethod: true,
    tests: [
      { name: "test_basic_relationship", steps: [v1qF("setup_remote_rel_basic.yaml"), check("basic_relationship.yaml")] },
      { name: "test_nested_fields", steps: [v1qF("setup_remote_rel_nested_fields.yaml"), check("basic_nested_fields.yaml")] },
    ],
  },
  {
    name: "TestComputedFieldsInRemoteRelationship",
    dir: DIR,
    transact: { setup: ["setup.yaml", "setup_remote_rel_computed_fields.yaml"], teardown: ["teardown.yaml"] },
    tests: [
      { name: "test_remote_join_with_computed_field", steps: [check("remote_join_with_computed_field.yaml")] },
      { name: "test_remote_join_with_computed_field_session", steps: [check("remote_join_with_computed_field_session.yaml")] },
    ],
  },
  {
    name: "TestRemoteRelationshipFieldType",
    dir: DIR,
    perMethod: true,
    tests: [
      {
        name: "test_remote_relationship_field_type",
        steps: [v1qF("setup_remote_rel_nested_args.yaml"), check("remote_relationship_field_type.yaml")],
      },
    ],
  },
];

/** Case files under the area's folders that no test of test_remote_relationships.py reads, and why. */
const UNREFERENCED_REASON =
  "not read by test_remote_relationships.py at the source commit (the tests that read them are commented out upstream, or they are unused setups)";

/** The per-method state files the harness applies itself. */
const STATE_FILES = /\/(setup|teardown)\.yaml$/;

/** The folders of test_remote_relationships.py (for remote-schemas-plan.ts to leave to this plan). */
export const REMOTE_RELATIONSHIPS_DIR = DIR;

/** The remote relationships area as folder plans, in upstream class order. */
export function loadRemoteRelationshipsPlan(): FolderPlan[] {
  const manifest = JSON.parse(readFileSync(join(FIXTURE_ROOT, "manifest.json"), "utf8")) as {
    additional_areas?: Record<string, { path: string }[]>;
  };
  const files = (manifest.additional_areas?.["remote schemas and remote relationships"] ?? []).map((f) => f.path);
  const referenced = new Set(CLASSES.flatMap(filesOf));
  const folders = new Map<string, FolderPlan>();
  const folderOf = (folder: string): FolderPlan => {
    let plan = folders.get(folder);
    if (!plan) {
      plan = {
        folder,
        priority: "remote_relationships",
        area: "remote_relationships",
        subscription: false,
        classes: [],
        unreferenced: [],
        unreferencedReason: UNREFERENCED_REASON,
      };
      folders.set(folder, plan);
    }
    return plan;
  };
  for (const spec of CLASSES) folderOf(spec.dir).classes.push(classPlan(spec));
  for (const file of files) {
    if (!file.startsWith(`${DIR}/`) || !file.endsWith(".yaml") || STATE_FILES.test(file) || referenced.has(file)) continue;
    folderOf(file.slice(0, file.lastIndexOf("/"))).unreferenced.push(file);
  }
  return [...folders.values()];
}
