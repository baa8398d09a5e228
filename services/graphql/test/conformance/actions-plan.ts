/**
 * The Actions area: hasura/graphql-engine server/tests-py/test_actions.py as a run plan. manifest.json
 * lists only this area's files, so the class plans are written out here, class by class and test by
 * test in upstream order:
 * - `@use_action_fixtures` (conftest.py: actions_fixture + per_class_db_schema_for_mutation_tests +
 *   per_method_db_data_for_mutation_tests) → mode "mutation" with the actions webhook;
 *   `use_action_fixtures_with_remote_joins` adds test_actions.py's graphql_service;
 *   `per_class_tests_db_state` → "class"; `postgis` → postgis.
 * - `check_query_f(hge_ctx, self.dir() + '/x.yaml'[, transport])` and test_actions.py's
 *   `check_query_secret` (the same without an admin secret) run the case file; tests whose body is
 *   Python code are ported below as inline tests, line for line.
 * - No test in the module carries a skip/xfail mark or a backend mark (Postgres only).
 * queries/actions/roles_inheritance is used by test_roles_inheritance.py, not by this module.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ClassPlan, FIXTURE_ROOT, type FolderPlan, type StateMode, type TestPlan } from "./fixtures.js";
import { assertEqual, assertStatus, dig, has, type InlineContext, InlineFailure, type InlineTest } from "./inline.js";

const SYNC = "queries/actions/sync";
const ASYNC = "queries/actions/async";

/**
 * Engine settings for every actions class. The fixtures expect the admin's `extensions.internal`
 * on webhook and metadata errors: upstream runs this module with the engine's default
 * HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS=true (hasura/graphql-engine .circleci/test-server.sh sets it to false only for
 * the read-only-source job), while the runner's default is false (service.ts).
 */
const ACTIONS_ENV = { HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS: "true" };

interface CaseOptions {
  transports?: string[];
  how?: string;
  skip?: string;
  skipSteps?: Record<number, string>;
}

function caseTest(name: string, dir: string, file: string, options: CaseOptions = {}): TestPlan {
  return {
    name,
    file: `${dir}/${file}`,
    how: options.how ?? "check_query_f",
    kw: {},
    transports: options.transports ?? ["http"],
    ...(options.skip ? { skip: options.skip } : {}),
    ...(options.skipSteps ? { skipSteps: options.skipSteps } : {}),
  };
}

/** `check_query_secret(hge_ctx, self.dir() + '/x.yaml')`: check_query_f with the admin secret added (none here). */
function secretTest(name: string, dir: string, file: string): TestPlan {
  return caseTest(name, dir, file, { how: "check_query_secret" });
}

/** A test whose body is Python code; `file` names the case file it reads, if any. */
function inlineTest(name: string, inline: InlineTest, file = "", skip?: string): TestPlan {
  return { name, file, how: "inline", kw: {}, transports: ["http"], inline, ...(skip ? { skip } : {}) };
}

interface ClassOptions {
  mode: StateMode;
  webhook?: boolean;
  graphqlService?: boolean;
  postgis?: boolean;
}

function classPlan(name: string, folder: string, options: ClassOptions, tests: TestPlan[]): ClassPlan {
  return {
    folder,
    name,
    mode: options.mode,
    postgis: options.postgis ?? false,
    tests,
    ...(options.webhook || options.graphqlService
      ? { helpers: { actionsWebhook: options.webhook ?? false, graphqlService: options.graphqlService ?? false } }
      : {}),
    env: ACTIONS_ENV,
  };
}

const useActionFixtures: ClassOptions = { mode: "mutation", webhook: true };

// --- Python test bodies ------------------------------------------------------------------------

/** `code, resp, _ = hge_ctx.anyq('/v1/graphql', query, headers); assert code == 200, resp` (no admin secret here). */
async function graphql(ctx: InlineContext, query: unknown, headers: Record<string, string> = {}) {
  const reply = await ctx.anyq("/v1/graphql", query, headers);
  assertStatus(reply, 200, "anyq /v1/graphql");
  return reply;
}

/** `assert error_message == expected` on `resp['errors'][0]['message']`. */
function firstErrorIs(expected: string, query: string): InlineTest {
  return async (ctx) => {
    const reply = await graphql(ctx, { query });
    assertEqual(dig(reply.body, "errors", 0, "message"), expected, "$.errors[0].message", reply.body);
  };
}

const insertClarke = `
        mutation {
          insert_user_one(object: {email: "clarke@gmail.com", name:"Clarke"}){
            id
          }
        }
        `;

/** TestQueryActions: insert a user as admin, then the case file. */
function insertThen(file: string, mutation = insertClarke): InlineTest {
  return async (ctx) => {
    await graphql(ctx, { query: mutation });
    await ctx.checkQueryFile(file);
  };
}

/** The async tests' first half: run the mutation, `assert 'data' in resp`, return `resp['data'][field]`. */
async function startAsync(ctx: InlineContext, field: string, mutation: string, headers: Record<string, string> = {}) {
  const reply = await graphql(ctx, { query: mutation, variables: {} }, headers);
  if (!has(reply.body, "data", "'data' in resp", reply.body))
    throw new InlineFailure("assert 'data' in resp: the mutation answered no data", { actual: reply.body });
  return dig(reply.body, "data", field);
}

function asyncQuery(query: string, actionId: unknown, headers: Record<string, string>, response?: unknown) {
  return {
    url: "/v1/graphql",
    headers,
    query: { query, variables: { action_id: actionId } },
    status: 200,
    ...(response !== undefined ? { response } : {}),
  };
}

/** `assert 'errors' in response['data'][field]` */
function errorsIn(body: unknown, field: string): void {
  const value = dig(body, "data", field);
  if (!has(value, "errors", `$.data.${field}`, body))
    throw new InlineFailure(`assert 'errors' in response['data']['${field}'] failed`, { actual: body });
}

const testCreateUsersOutputType: InlineTest = async (ctx) => {
  const gqlQuery = `
        query {
          __type(name: "mutation_root"){
            fields {
              name
              type{
                kind
              }
            }
          }
        }
        `;
  const reply = await graphql(ctx, { query: gqlQuery });
  const fields = dig(reply.body, "data", "__type", "fields");
  if (!Array.isArray(fields)) throw new InlineFailure("TypeError: mutation_root's fields are not a list", { actual: reply.body });
  // Upstream checks the kind only if create_users is a root field; without one the loop checks nothing.
  for (const [i, field] of fields.entries())
    if (dig(field, "name") === "create_users")
      assertEqual(dig(field, "type", "kind"), "LIST", `$.data.__type.fields[${i}].type.kind`, reply.body);
};

const testMirrorHeaders: InlineTest = async (ctx) => {
  const query = `
          query {
            mirror_headers {
              headers {
                name
                value
              }
            }
          }
        `;
  const reply = await graphql(ctx, { query });
  const respHeaders = dig(reply.body, "data", "mirror_headers", "headers");
  if (!Array.isArray(respHeaders)) throw new InlineFailure("TypeError: mirror_headers.headers is not a list", { actual: reply.body });
  const userAgent = respHeaders.map((h) => h as Record<string, unknown>).find((h) => dig(h, "name") === "User-Agent");
  const value = userAgent === undefined ? undefined : dig(userAgent, "value");
  if (value === undefined || value === null)
    throw new InlineFailure("assert user_agent_header is not None: the webhook received no header named exactly 'User-Agent'", {
      actual: reply.body,
    });
  if (typeof value !== "string" || !value.startsWith("hasura-graphql-engine/"))
    throw new InlineFailure(`assert user_agent_header.startswith("hasura-graphql-engine/"): got ${JSON.stringify(value)}`, {
      actual: reply.body,
    });
};

const testSetCookieHeader: InlineTest = async (ctx) => {
  const mutation = `
          mutation {
            create_user(email: "clarke@gmail.com", name: "Clarke"){
              id
            }
          }
        `;
  const reply = await graphql(ctx, { query: mutation, variables: {} });
  if (!has(reply.body, "data", "'data' in resp", reply.body)) throw new InlineFailure("assert 'data' in resp", { actual: reply.body });
  // requests' headers are case-insensitive and join repeated headers with ", ".
  const raw = reply.headers["set-cookie"];
  const setCookie = Array.isArray(raw) ? raw.join(", ") : raw;
  if (setCookie !== "abcd")
    throw new InlineFailure(`assert resp_headers['Set-Cookie'] == 'abcd': got ${JSON.stringify(setCookie ?? null)}`, {
      actual: reply.headers,
    });
};

const createUserAsync = `
        query ($action_id: uuid!){
          create_user(id: $action_id){
            id
            errors
          }
        }
        `;

const testAsyncCreateUserFail: InlineTest = async (ctx) => {
  const mutation = `
        mutation {
          create_user(email: "random-email", name: "Clarke")
        }
        `;
  const actionId = await startAsync(ctx, "create_user", mutation);
  const response = {
    data: { create_user: { id: actionId, errors: { code: "invalid-email", path: "$", error: "Given email address is not valid" } } },
  };
  await ctx.checkQueryTimeout(asyncQuery(createUserAsync, actionId, {}, response), 10);
};

const errorResponseQuery = `
        query ($action_id: uuid!){
          test_async_action_error_response(id: $action_id){
            id
            errors
          }
        }
        `;
const errorResponseMutation = `
        mutation {
          test_async_action_error_response
        }
        `;

const testAsyncErrorResponseUserRole: InlineTest = async (ctx) => {
  const actionId = await startAsync(ctx, "test_async_action_error_response", errorResponseMutation, { "x-hasura-role": "user" });
  const response = {
    data: {
      test_async_action_error_response: {
        id: actionId,
        errors: { code: "unexpected", path: "$", error: "not a valid json response from webhook" },
      },
    },
  };
  await ctx.checkQueryTimeout(asyncQuery(errorResponseQuery, actionId, { "x-hasura-role": "user" }, response), 10);
};

const testAsyncErrorResponseAdminRole: InlineTest = async (ctx) => {
  const actionId = await startAsync(ctx, "test_async_action_error_response", errorResponseMutation, { "x-hasura-role": "admin" });
  await ctx.sleep(10_000);
  const body = await ctx.checkQuery(asyncQuery(errorResponseQuery, actionId, { "x-hasura-role": "admin" }));
  errorsIn(body, "test_async_action_error_response");
};

/**
 * TestActionsAsync.test_create_user_success and test_create_user_transformed_success (the same
 * body for another action; its request transform makes the handler create another user).
 */
function asyncCreateUser(action: string, user: { name: string; email: string }): InlineTest {
  return async (ctx) => {
    const mutation = `
        mutation {
          ${action}(email: "clarke@hasura.io", name: "Clarke")
        }
        `;
    const actionId = await startAsync(ctx, action, mutation);
    const query = `
        query ($action_id: uuid!){
          ${action}(id: $action_id){
            __typename
            id
            output {
              __typename
              id
              user {
                __typename
                name
                email
                is_admin
              }
            }
          }
        }
        `;
    const response = {
      data: {
        [action]: {
          __typename: action,
          id: actionId,
          output: { __typename: "UserId", id: 1, user: { __typename: "user", ...user, is_admin: false } },
        },
      },
    };
    await ctx.checkQueryTimeout(asyncQuery(query, actionId, {}, response), 10);
  };
}
const testAsyncCreateUserSuccess = asyncCreateUser("create_user", { name: "Clarke", email: "clarke@hasura.io" });
const testAsyncCreateUserTransformedSuccess = asyncCreateUser("create_user_transformed", { name: "notClarke", email: "foo@bar.com" });

const testAsyncCreateUserRoles: InlineTest = async (ctx) => {
  const mutation = `
        mutation {
          create_user(email: "blake@hasura.io", name: "Blake")
        }
        `;
  const headersUser1 = { "X-Hasura-Role": "user", "X-Hasura-User-Id": "1" };
  const actionId = await startAsync(ctx, "create_user", mutation, headersUser1);
  const query = `
        query ($action_id: uuid!){
          create_user(id: $action_id){
            id
            output {
              id
            }
          }
        }
        `;
  const headersUser2 = { "X-Hasura-Role": "user", "X-Hasura-User-Id": "2" };
  // User 2 shouldn't be able to access the action.
  await ctx.checkQueryTimeout(asyncQuery(query, actionId, headersUser2, { data: { create_user: null } }), 10);
  await ctx.checkQueryTimeout(
    asyncQuery(query, actionId, headersUser1, { data: { create_user: { id: actionId, output: { id: 1 } } } }),
    10,
  );
};

const testAsyncCreateUserNestedSuccess: InlineTest = async (ctx) => {
  const mutation = `
        mutation {
          create_user_nested(email: "clarke@hasura.io", name: "Clarke")
        }
        `;
  const actionId = await startAsync(ctx, "create_user_nested", mutation);
  const query = `
        query ($action_id: uuid!){
          create_user_nested(id: $action_id){
            __typename
            id
            output {
              __typename
              userObj {
                __typename
                id
              }
            }
          }
        }
        `;
  const response = {
    data: {
      create_user_nested: {
        __typename: "create_user_nested",
        id: actionId,
        output: { __typename: "UserIdNested", userObj: { __typename: "UserIdObj", id: 1 } },
      },
    },
  };
  await ctx.checkQueryTimeout(asyncQuery(query, actionId, {}, response), 10);
};

const testActionTimeoutFail: InlineTest = async (ctx) => {
  const mutation = `
        mutation {
          create_user(email: "random-email", name: "Clarke")
        }
        `;
  const actionId = await startAsync(ctx, "create_user", mutation);
  // The handler sleeps 3 s and the action's timeout is 2 s; upstream waits 4 s before looking.
  await ctx.sleep(4000);
  const body = await ctx.checkQuery(asyncQuery(createUserAsync, actionId, {}));
  errorsIn(body, "create_user");
};

const testIntrospectionQuery: InlineTest = async (ctx) => {
  const conf = ctx.conf("queries/actions/introspection/introspection_query.yaml") as { url: string; query: unknown };
  const reply = await ctx.anyq(conf.url, conf.query, {});
  assertStatus(reply, 200, `anyq ${conf.url}`);
  if (!has(reply.body, "data", "'data' in resp", reply.body)) throw new InlineFailure("assert 'data' in resp", { actual: reply.body });
};

// --- the classes -------------------------------------------------------------------------------

const syncWebsocket = ["websocket"];

const CLASSES: ClassPlan[] = [
  classPlan("TestActionsSyncWebsocket", SYNC, useActionFixtures, [
    caseTest("test_create_user_fail", SYNC, "create_user_fail.yaml", { transports: syncWebsocket }),
    caseTest("test_create_user_success", SYNC, "create_user_success.yaml", { transports: syncWebsocket }),
    caseTest("test_create_user_relationship", SYNC, "create_user_relationship.yaml", { transports: syncWebsocket }),
    caseTest("test_create_user_relationship_fail", SYNC, "create_user_relationship_fail.yaml", { transports: syncWebsocket }),
    caseTest("test_create_users_fail", SYNC, "create_users_fail.yaml", { transports: syncWebsocket }),
    caseTest("test_create_users_success", SYNC, "create_users_success.yaml", { transports: syncWebsocket }),
  ]),
  classPlan(
    "TestActionsRelationshipsBasic",
    "queries/actions/relationships/basic",
    { mode: "class", webhook: true, graphqlService: true },
    [
      caseTest("test_query_with_relationships", "queries/actions/relationships/basic", "query_with_relationships.yaml", {
        transports: ["http", "websocket"],
      }),
    ],
  ),
  classPlan("TestActionsSync", SYNC, useActionFixtures, [
    secretTest("test_null_response", SYNC, "null_response.yaml"),
    secretTest("test_omitted_field_response_for_nullable_field", SYNC, "omitted_field_response_for_nullable_field.yaml"),
    secretTest("test_expecting_object_response_got_null", SYNC, "expecting_object_response_got_null.yaml"),
    secretTest("test_expecting_array_response_got_null", SYNC, "expecting_array_response_got_null.yaml"),
    secretTest("test_expecting_object_response_got_array", SYNC, "expecting_object_response.yaml"),
    secretTest("test_expecting_array_response_got_object", SYNC, "expecting_array_response.yaml"),
    secretTest("test_expecting_scalar_output_type_success", SYNC, "get_scalar_action_output_type_success.yaml"),
    secretTest("test_expecting_scalar_string_output_type_got_object", SYNC, "expecting_scalar_response_got_object.yaml"),
    secretTest("test_expecting_object_output_type_got_scalar_string", SYNC, "expecting_object_response_got_scalar.yaml"),
    caseTest("test_scalar_response_action_transformed_output", SYNC, "scalar_response_action_transformed_output.yaml"),
    caseTest("test_object_response_action_transformed_output", SYNC, "object_response_action_transformed_output.yaml"),
    secretTest("test_expecting_string_scalar_array_output_type_success", SYNC, "get_string_scalar_array_action_output_type_success.yaml"),
    secretTest(
      "test_expecting_number_scalar_array_output_type_got_string_array",
      SYNC,
      "get_string_scalar_array_action_output_type_expecting_number_array.yaml",
    ),
    secretTest("test_scalar_array_field_nullability_check", SYNC, "get_null_field_expecting_non_nullable_field_array.yaml"),
    caseTest("test_expecting_object_response_with_nested_null", SYNC, "expecting_object_response_with_nested_null.yaml"),
    caseTest("test_expecting_jsonb_response_success", SYNC, "expecting_jsonb_response_success.yaml"),
    caseTest("test_expecting_custom_scalar_response_success", SYNC, "expecting_custom_scalar_response_success.yaml"),
    caseTest("test_expecting_custom_scalar_array_response_success", SYNC, "expecting_custom_scalar_array_response_success.yaml"),
    inlineTest(
      "test_expecting_custom_scalar_array_response_got_different_type",
      firstErrorIs(
        "expecting array for the action webhook response",
        `
                mutation {
                    custom_scalar_nested_array_response
                }
            `,
      ),
    ),
    inlineTest(
      "test_expecting_object_response_with_nested_null_wrong_field",
      firstErrorIs(
        'expecting not null value for field "id"',
        `
                query {
                    typed_nested_null_wrong_field {
                        id
                        child {
                        id
                        }
                    }
                }
            `,
      ),
    ),
    secretTest("test_mirror_action_not_null", SYNC, "mirror_action_not_null.yaml"),
    secretTest("test_mirror_action_unexpected_field", SYNC, "mirror_action_unexpected_field.yaml"),
    secretTest("test_mirror_action_no_field", SYNC, "mirror_action_no_field.yaml"),
    caseTest("test_mirror_action_success", SYNC, "mirror_action_success.yaml"),
    caseTest("test_mirror_action_transformed_success", SYNC, "mirror_action_transformed_success.yaml"),
    caseTest("test_mirror_action_transformed_output_success", SYNC, "mirror_action_transformed_output_success.yaml"),
    inlineTest("test_mirror_headers", testMirrorHeaders),
    caseTest("test_results_list_transformed_output_success", SYNC, "results_list_transformed_output_success.yaml"),
    inlineTest("test_create_users_output_type", testCreateUsersOutputType),
  ]),
  classPlan("TestActionsSyncWithRemoteJoins", `${SYNC}/remote_joins`, { ...useActionFixtures, graphqlService: true }, [
    caseTest("test_action_with_remote_joins", `${SYNC}/remote_joins`, "action_with_remote_joins.yaml"),
  ]),
  classPlan("TestQueryActions", SYNC, useActionFixtures, [
    caseTest("test_query_action_extensions_code_both_codes_fail", SYNC, "extensions_code_both_codes.yaml"),
    caseTest("test_query_action_extensions_code_toplevel_empty_extensions_fail", SYNC, "extensions_code_toplevel_empty_extensions.yaml"),
    caseTest("test_query_action_extensions_code_toplevel_no_extensions_fail", SYNC, "extensions_code_toplevel_no_extensions.yaml"),
    caseTest("test_query_action_extensions_code_only_extensions_code_fail", SYNC, "extensions_code_only_extensions_code.yaml"),
    caseTest("test_query_action_extensions_code_only_empty_extensions_fail", SYNC, "extensions_code_only_empty_extensions.yaml"),
    caseTest("test_query_action_extensions_code_nothing_fail", SYNC, "extensions_code_nothing.yaml"),
    caseTest("test_query_action_fail", SYNC, "get_user_by_email_fail.yaml"),
    inlineTest(
      "test_query_action_success_output_object",
      insertThen(`${SYNC}/get_user_by_email_success.yaml`),
      `${SYNC}/get_user_by_email_success.yaml`,
    ),
    inlineTest(
      "test_query_action_success_output_nested_object",
      insertThen(`${SYNC}/get_user_by_email_nested_success.yaml`),
      `${SYNC}/get_user_by_email_nested_success.yaml`,
    ),
    inlineTest(
      "test_query_action_success_output_nested_join",
      insertThen(`${SYNC}/get_user_by_email_nested_join_success.yaml`),
      `${SYNC}/get_user_by_email_nested_join_success.yaml`,
    ),
    inlineTest(
      "test_query_action_success_output_list",
      insertThen(
        `${SYNC}/get_users_by_email_success.yaml`,
        `
        mutation {
          insert_user(objects:
        [{id:1,email: "clarke@gmail.com", name:"Clarke 1"},
         {id:2,email: "clarke@gmail.com", name:"Clarke 2"}])
        {
            returning {
               id
           }
          }
        }
        `,
      ),
      `${SYNC}/get_users_by_email_success.yaml`,
    ),
    inlineTest(
      "test_query_action_should_not_throw_validation_error",
      async (ctx) => {
        for (let i = 0; i < 25; i++) {
          try {
            await insertThen(`${SYNC}/get_user_by_email_success.yaml`)(ctx);
          } catch (error) {
            if (error instanceof InlineFailure) error.message = `iteration ${i + 1}/25: ${error.message}`;
            throw error;
          }
        }
      },
      `${SYNC}/get_user_by_email_success.yaml`,
    ),
    caseTest("test_query_action_with_relationship", SYNC, "query_action_relationship_with_permission.yaml"),
    caseTest("test_query_action_recursive_output", SYNC, "query_action_recursive_output.yaml"),
  ]),
  classPlan("TestActionsSyncResponseHeaders", SYNC, useActionFixtures, [inlineTest("test_set_cookie_header", testSetCookieHeader)]),
  classPlan("TestActionsAsync", ASYNC, useActionFixtures, [
    inlineTest("test_create_user_fail", testAsyncCreateUserFail),
    inlineTest("test_async_actions_error_response_user_role", testAsyncErrorResponseUserRole),
    inlineTest("test_async_actions_error_response_admin_role", testAsyncErrorResponseAdminRole),
    inlineTest("test_create_user_success", testAsyncCreateUserSuccess),
    inlineTest("test_create_user_roles", testAsyncCreateUserRoles),
    inlineTest("test_create_user_transformed_success", testAsyncCreateUserTransformedSuccess),
    inlineTest("test_create_user_nested_success", testAsyncCreateUserNestedSuccess),
  ]),
  classPlan("TestCreateActionNestedTypeWithRelation", "queries/actions/nested-relation", useActionFixtures, [
    caseTest(
      "test_create_async_action_with_nested_output_and_relation_fail",
      "queries/actions/nested-relation",
      "create_async_action_with_nested_output_and_relation.yaml",
    ),
    caseTest(
      "test_create_sync_action_with_nested_output_and_nested_relation",
      "queries/actions/nested-relation",
      "create_sync_action_with_nested_output_and_nested_relation.yaml",
    ),
  ]),
  classPlan("TestSetCustomTypes", "queries/actions/custom-types", { mode: "class", webhook: true, postgis: true }, [
    caseTest("test_reuse_pgscalars", "queries/actions/custom-types", "reuse_pgscalars.yaml"),
    caseTest("test_reuse_unknown_pgscalar", "queries/actions/custom-types", "reuse_unknown_pgscalar.yaml"),
    caseTest("test_create_action_pg_scalar", "queries/actions/custom-types", "create_action_pg_scalar.yaml"),
    caseTest("test_list_type_relationship", "queries/actions/custom-types", "list_type_relationship.yaml"),
    caseTest("test_drop_relationship", "queries/actions/custom-types", "drop_relationship.yaml"),
  ]),
  classPlan("TestActionsMetadata", "queries/actions/metadata", { mode: "class", webhook: true }, [
    caseTest("test_recreate_permission", "queries/actions/metadata", "recreate_permission.yaml"),
    caseTest("test_create_with_headers", "queries/actions/metadata", "create_with_headers.yaml"),
  ]),
  classPlan("TestActionIntrospection", "queries/actions/introspection", { mode: "class" }, [
    inlineTest("test_introspection_query", testIntrospectionQuery, "queries/actions/introspection/introspection_query.yaml"),
    caseTest("test_output_types", "queries/actions/introspection", "output_types_query.yaml"),
  ]),
  classPlan("TestFunctionReturnTypeIntrospection", "queries/actions/introspection/function_return_type", { mode: "class" }, [
    caseTest("test_function_return_type", "queries/actions/introspection/function_return_type", "function_return_type.yaml"),
  ]),
  classPlan("TestActionTimeout", "queries/actions/timeout", useActionFixtures, [
    inlineTest("test_action_timeout_fail", testActionTimeoutFail),
  ]),
];

const STATE_FILES = /\/(setup|teardown|schema_setup|schema_teardown|values_setup|values_teardown)\.yaml$/;

/** Folders of the area no test_actions.py class uses, and why. */
const OTHER_MODULE: Record<string, string> = {
  "queries/actions/roles_inheritance":
    "used by test_roles_inheritance.py (TestActionsPermissionInheritance), a module outside the stored Actions area",
};

/** The Actions area as folder plans (report areas like `queries/actions/sync`), in upstream class order. */
export function loadActionsPlan(): FolderPlan[] {
  const manifest = JSON.parse(readFileSync(join(FIXTURE_ROOT, "manifest.json"), "utf8")) as {
    additional_areas?: { actions?: { path: string }[] };
  };
  const files = (manifest.additional_areas?.actions ?? []).map((f) => f.path);
  const referenced = new Set(CLASSES.flatMap((c) => c.tests.map((t) => t.file)));
  const folders = new Map<string, FolderPlan>();
  const folderOf = (folder: string): FolderPlan => {
    let plan = folders.get(folder);
    if (!plan) {
      plan = { folder, priority: "actions", area: "actions", subscription: false, classes: [], unreferenced: [] };
      folders.set(folder, plan);
    }
    return plan;
  };
  for (const cls of CLASSES) folderOf(cls.folder).classes.push(cls);
  for (const file of files) {
    if (!file.endsWith(".yaml") || STATE_FILES.test(file) || referenced.has(file)) continue;
    const plan = folderOf(dirname(file));
    plan.unreferenced.push(file);
    const reason = OTHER_MODULE[plan.folder];
    if (reason) plan.unreferencedReason = reason;
  }
  return [...folders.values()];
}
