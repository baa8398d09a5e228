/**
 * Live queries multiplexed as Hasura multiplexes them: subscribers of one role and query shape
 * share a poller, those whose values are equal share a cohort, and one statement answers a batch
 * of cohorts (counted by the engine's own statement counter); an answer is pushed only when it
 * changed, a cohort's subscribers never see another's rows, a subscriber joining a cohort gets
 * its last answer at once, and a subscription is bounded when it starts as a query is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../src/engine/request/session.js";
import { type BoundsSetup, openBoundsService } from "./support/bounds.js";
import { testBackends } from "./support/db.js";
import { Inbox, until } from "./support/inbox.js";
import { ADMIN_HEADERS, graphql } from "./support/limits.js";

const ADMIN: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
const user = (id: number): Session => ({
  role: "user",
  variables: { "x-hasura-role": "user", "x-hasura-user-id": String(id) },
  isAdmin: false,
  useBackendOnly: false,
});

describe.each(testBackends)("live queries (%s)", (backend) => {
  let setup: BoundsSetup;
  const stops: Array<() => void> = [];
  beforeAll(async () => {
    // A poll every 200 ms; 100 cohorts per statement.
    setup = await openBoundsService(backend, {
      HASURA_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "200",
      HASURA_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_REFETCH_INTERVAL: "200",
    });
  }, 60_000);
  afterAll(async () => {
    for (const stop of stops) stop();
    await setup?.close();
  });

  /** Starts a subscription through the runtime (as the WebSocket adapters do); returns its inbox. */
  async function subscribe(query: string, session: Session, variables?: Record<string, unknown>): Promise<Inbox> {
    const inbox = new Inbox();
    const started = await setup.service.runtime.start({ query, variables }, session, {}, inbox);
    if (started.kind !== "subscription") throw new Error(`not a subscription: ${started.response.body}`);
    stops.push(started.stop);
    return inbox;
  }

  it("keeps cohorts apart: each user sees their own rows, and a write reaches only its owner's subscribers", async () => {
    const query = "subscription { posts(order_by: {id: desc}, limit: 2) { id title } }";
    const seven = await subscribe(query, user(7));
    const eight = await subscribe(query, user(8));
    await until(() => seven.bodies.length === 1 && eight.bodies.length === 1);
    expect(seven.last).toEqual({
      data: {
        posts: [
          { id: 2706, title: "post number 2706" },
          { id: 2406, title: "post number 2406" },
        ],
      },
    });
    expect(eight.last).toMatchObject({ data: { posts: [{ id: 2707 }, { id: 2407 }] } });
    await graphql(
      setup.service,
      { query: 'mutation { insert_posts_one(object: {id: 9008, user_id: 8, title: "new for 8"}) { id } }' },
      ADMIN_HEADERS,
    );
    await until(() => eight.bodies.length === 2);
    expect(eight.last).toMatchObject({ data: { posts: [{ id: 9008, title: "new for 8" }, { id: 2707 }] } });
    // Several polls later, user 7's answer has not changed, so nothing more was pushed to it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(seven.bodies).toHaveLength(1);
    expect(eight.bodies).toHaveLength(2);
  });

  it("answers 150 cohorts of one shape with one statement per batch of 100", async () => {
    const query = "subscription ($id: Int!) { users_by_pk(id: $id) { id name } }";
    const first = await subscribe(query, ADMIN, { id: 1 });
    await until(() => first.bodies.length === 1);
    const before = setup.service.runtime.statementsSent;
    const inboxes: Inbox[] = [];
    // No macrotask between these starts: every new cohort waits for the one poll that follows.
    for (let id = 2; id <= 150; id++) inboxes.push(await subscribe(query, ADMIN, { id }));
    await until(() => inboxes.every((inbox) => inbox.bodies.length === 1));
    expect(setup.service.runtime.statementsSent - before).toBe(2);
    expect(inboxes[148]?.last).toEqual({ data: { users_by_pk: { id: 150, name: "user 150" } } });
    // A subscriber joining a cohort is given its last answer at once.
    const again = await subscribe(query, ADMIN, { id: 150 });
    expect(again.bodies).toEqual([{ data: { users_by_pk: { id: 150, name: "user 150" } } }]);
  });

  it("streams a table in batches from the cursor on, never an empty batch, then what is written later", async () => {
    const stream = await subscribe("subscription { posts_stream(batch_size: 4, cursor: {initial_value: {id: 0}}) { id } }", user(9));
    await until(() => stream.bodies.length === 3);
    expect(stream.bodies).toEqual([
      { data: { posts_stream: [{ id: 8 }, { id: 308 }, { id: 608 }, { id: 908 }] } },
      { data: { posts_stream: [{ id: 1208 }, { id: 1508 }, { id: 1808 }, { id: 2108 }] } },
      { data: { posts_stream: [{ id: 2408 }, { id: 2708 }] } },
    ]);
    // Caught up: the polls that find nothing send nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stream.bodies).toHaveLength(3);
    await graphql(
      setup.service,
      { query: 'mutation { insert_posts_one(object: {id: 9009, user_id: 9, title: "later"}) { id } }' },
      ADMIN_HEADERS,
    );
    await until(() => stream.bodies.length === 4);
    expect(stream.last).toEqual({ data: { posts_stream: [{ id: 9009 }] } });
    // A subscriber starting from the same cursor later is a new cohort: it gets the stream from its start.
    const late = await subscribe("subscription { posts_stream(batch_size: 4, cursor: {initial_value: {id: 0}}) { id } }", user(9));
    await until(() => late.bodies.length === 1);
    expect(late.bodies[0]).toEqual(stream.bodies[0]);
  });

  it("returns the rows that tie on the cursor together, and streams backwards with DESC", async () => {
    const query = `subscription ($start: Int!, $ordering: cursor_ordering) {
      posts_stream(batch_size: 3, cursor: {initial_value: {user_id: $start}, ordering: $ordering}, where: {id: {_lte: 3000}}) { user_id }
    }`;
    const forward = await subscribe(query, { ...user(1), role: "reader" }, { start: 0, ordering: "ASC" });
    await until(() => forward.bodies.length >= 2);
    // Ten posts per user: a batch of 3 takes all ten that tie on user_id.
    expect(forward.bodies[0]).toEqual({ data: { posts_stream: Array.from({ length: 10 }, () => ({ user_id: 1 })) } });
    expect(forward.bodies[1]).toEqual({ data: { posts_stream: Array.from({ length: 10 }, () => ({ user_id: 2 })) } });
    const backward = await subscribe(query, { ...user(1), role: "reader" }, { start: 300, ordering: "DESC" });
    await until(() => backward.bodies.length >= 1);
    expect(backward.bodies[0]).toEqual({ data: { posts_stream: Array.from({ length: 10 }, () => ({ user_id: 299 })) } });
  });

  it("bounds a subscription when it starts, as it bounds a query", async () => {
    const wide = `subscription { users { ${Array.from({ length: 1001 }, (_, i) => `p${i}: posts { id }`).join(" ")} } }`;
    const refused = await setup.service.runtime.start({ query: wide }, user(7), {}, new Inbox());
    expect(refused.kind).toBe("answer");
    expect(refused.kind === "answer" && JSON.parse(refused.response.body)).toMatchObject({
      errors: [{ extensions: { code: "node-limit-exceeded" } }],
    });
    const asAdmin = await setup.service.runtime.start({ query: wide }, ADMIN, {}, new Inbox());
    expect(asAdmin.kind === "answer" && JSON.parse(asAdmin.response.body)).toMatchObject({
      errors: [{ extensions: { code: "statement-size-limit-exceeded" } }],
    });
  });

  it("refuses what it does not serve over subscriptions with Hasura's errors", async () => {
    const refusal = async (query: string) => {
      const started = await setup.service.runtime.start({ query }, ADMIN, {}, new Inbox());
      return started.kind === "answer" ? JSON.parse(started.response.body) : started.kind;
    };
    const error = (code: string, message: string) => ({ errors: [{ extensions: { path: "$", code }, message }] });
    expect(await refusal("subscription { __typename }")).toEqual(
      error("not-supported", "Introspection at root field level is not supported over subscriptions"),
    );
    expect(await refusal("subscription { users { id } posts { id } }")).toEqual(
      error("validation-failed", "subscriptions must select one top level field"),
    );
    const stream = "posts_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id }";
    expect(await refusal(`subscription @_multiple_top_level_fields { users { id } ${stream} }`)).toEqual(
      error("not-supported", "exactly one root field is allowed for streaming subscriptions"),
    );
    expect(await refusal("query @_multiple_top_level_fields { users { id } }")).toMatchObject({
      errors: [{ extensions: { code: "validation-failed" }, message: 'directive "_multiple_top_level_fields" is not allowed on a query' }],
    });
  });

  it("answers several root fields together with @_multiple_top_level_fields, as Hasura's own tests subscribe", async () => {
    const query = `subscription @_multiple_top_level_fields {
      mine: posts(order_by: {id: desc}, limit: 1) { id }
      none: posts_by_pk(id: -1) { id }
      total: posts_aggregate { aggregate { count } }
    }`;
    const inbox = await subscribe(query, ADMIN);
    const asQuery = (
      await graphql(setup.service, { query: query.replace("subscription @_multiple_top_level_fields", "query") }, ADMIN_HEADERS)
    ).body;
    await until(() => inbox.bodies.length === 1);
    expect(inbox.last).toEqual(asQuery);
    expect(inbox.last).toMatchObject({ data: { mine: [{}], none: null, total: { aggregate: {} } } });
  });
});
