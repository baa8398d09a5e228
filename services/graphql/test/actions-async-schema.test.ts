/**
 * The query type of an asynchronous action as Hasura introspects it: `fields of action: "<name>"`
 * whatever the action's comment (the comment describes the root fields), and its fields and `id`
 * argument described (actionAsyncQuery in server/src-lib/Hasura/GraphQL/Schema/Action.hs); the
 * same reading field in subscription_root, for asynchronous actions only (buildActionSubscriptionFields
 * in server/src-lib/Hasura/GraphQL/Schema.hs).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { ADMIN_HEADERS, admin, graphql, openService, type Service } from "./support/limits.js";

describe.each(testBackends)("asynchronous action schema [%s]", (backend) => {
  let handle: TestDatabase;
  let service: Service;

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    service = await openService(handle.db, { HASURA_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL: "0" });
    const setup = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "set_custom_types", args: { objects: [{ name: "Queued", fields: [{ name: "ok", type: "Boolean!" }] }] } },
        {
          type: "create_action",
          args: {
            name: "run_now",
            definition: { kind: "synchronous", arguments: [], output_type: "Queued", handler: "http://127.0.0.1:1/now" },
          },
        },
        {
          type: "create_action",
          args: {
            name: "queue_job",
            definition: {
              kind: "asynchronous",
              arguments: [{ name: "name", type: "String!" }],
              output_type: "Queued",
              handler: "http://127.0.0.1:1/job",
            },
            comment: "Queues a job",
          },
        },
      ],
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  });

  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
  });

  it("describes the type, its fields and the id argument as Hasura does", async () => {
    const { body } = await graphql(
      service,
      {
        query: `{
          type: __type(name: "queue_job") { description fields { name description } }
          query_root: __type(name: "query_root") { fields { name description args { name description } } }
          mutation_root: __type(name: "mutation_root") { fields { name description } }
        }`,
      },
      ADMIN_HEADERS,
    );
    type Field = { name: string; description: string | null; args?: { name: string; description: string | null }[] };
    const data = (
      body as {
        data: { type: { description: string; fields: Field[] }; query_root: { fields: Field[] }; mutation_root: { fields: Field[] } };
      }
    ).data;
    expect(data.type).toEqual({
      description: 'fields of action: "queue_job"',
      fields: [
        { name: "id", description: "the unique id of an action" },
        { name: "created_at", description: "the time at which this action was created" },
        { name: "errors", description: "errors related to the invocation" },
        { name: "output", description: "the output fields of this action" },
      ],
    });
    expect(data.query_root.fields.find((f) => f.name === "queue_job")).toEqual({
      name: "queue_job",
      description: "Queues a job",
      args: [{ name: "id", description: "the unique id of an action" }],
    });
    expect(data.mutation_root.fields.find((f) => f.name === "queue_job")).toEqual({ name: "queue_job", description: "Queues a job" });
  });

  it("offers the asynchronous action's result in subscription_root, and no synchronous action there", async () => {
    const { body } = await graphql(
      service,
      { query: `{ __type(name: "subscription_root") { fields { name type { name kind } args { name type { kind ofType { name } } } } } }` },
      ADMIN_HEADERS,
    );
    const fields = (body as { data: { __type: { fields: { name: string }[] } } }).data.__type.fields;
    expect(fields.filter((f) => f.name === "queue_job" || f.name === "run_now")).toEqual([
      {
        name: "queue_job",
        type: { name: "queue_job", kind: "OBJECT" },
        args: [{ name: "id", type: { kind: "NON_NULL", ofType: { name: "uuid" } } }],
      },
    ]);
  });
});
