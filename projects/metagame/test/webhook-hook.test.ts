/**
 * GET /auth-webhook on the wire (what the engine reads: the JSON object, the status, the empty
 * 401 body), first-sight creation raced by several backend instances at once, and the answer
 * when the auth service's keys cannot be fetched.
 */
import { createLogger } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBackendConfig } from "../backend/src/config.js";
import { createEngineClient } from "../backend/src/engine-client.js";
import type { ProfileQueue } from "../backend/src/queue/index.js";
import { startBackend } from "../backend/src/server.js";
import { createPlayerRegistry, placeholderAddress } from "../backend/src/webhook/players.js";
import { MAX_AGE_S } from "../backend/src/webhook/routes.js";
import { AUTH_ISSUER, AUTH_JWT_SECRET, apiKey, startTestAuth, type TestAuth, webhookEnv } from "./support/auth.js";
import { ADMIN_SECRET, startPlatform, type TestPlatform } from "./support/platform.js";
import { SETUP_TIMEOUT_MS } from "./support/timeouts.js";

let auth: TestAuth;
let platform: TestPlatform;

beforeAll(async () => {
  auth = await startTestAuth();
  platform = await startPlatform({ backendEnv: webhookEnv(auth) });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await platform?.close();
  await auth?.close();
});

const hook = (headers: Record<string, string> = {}) => fetch(`${platform.backend.url}/auth-webhook`, { headers });

describe("GET /auth-webhook", () => {
  it("answers public without a token, admin for the service key", async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: "Bearer   " },
      { authorization: `Bearer ${await apiKey("anon")}` },
    ];
    for (const headers of cases) {
      const response = await hook(headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ "X-Hasura-Role": "public" });
    }
    const admin = await hook({ authorization: `Bearer ${await apiKey("service_role")}` });
    expect(await admin.json()).toEqual({ "X-Hasura-Role": "admin" });
  });

  it("answers a player with its id and how long the answer holds", async () => {
    const session = await auth.signUp();
    const response = await hook({ authorization: `bearer ${session.accessToken}` });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toEqual({
      "X-Hasura-Role": "player",
      "X-Hasura-User-Id": session.userId,
      "Cache-Control": expect.stringMatching(/^max-age=\d+$/),
    });
    const maxAge = Number(body["Cache-Control"]?.slice("max-age=".length));
    expect(maxAge).toBeGreaterThan(MAX_AGE_S - 5);
    expect(maxAge).toBeLessThanOrEqual(MAX_AGE_S);
  });

  it("refuses other schemes and bad tokens with 401 and an empty body", async () => {
    const session = await auth.signUp();
    for (const authorization of ["Basic dXNlcjpwYXNz", "Token abc", `Bearer ${session.accessToken}x`, "Bearer a.b.c", "Bearer ..."]) {
      const response = await hook({ authorization });
      expect(response.status).toBe(401);
      expect(await response.text()).toBe("");
    }
  });

  it("creates one player when instances race on a user's first requests, and queues one refresh", async () => {
    const session = await auth.signUp();
    const queued: string[] = [];
    const queue: ProfileQueue = {
      async enqueue(id) {
        queued.push(id);
        return true;
      },
      async close() {},
    };
    const engine = createEngineClient(`${platform.engineUrl}/v1/graphql`, ADMIN_SECRET);
    // Four registries are four backend instances: nothing shared but the database.
    const instances = Array.from({ length: 4 }, () => createPlayerRegistry({ engine, profileQueue: queue }));
    const log = createLogger({ level: "silent" });
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => instances[i % 4]?.ensure(session.userId, null, log)));
    expect(created.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(queued).toEqual([session.userId]);
    const rows = await platform.admin<{ player: Array<{ ethereumAddress: string; profile: { playerId: string } }> }>(
      `query P($id: uuid!) { player(where: {id: {_eq: $id}}) { ethereumAddress profile { playerId } } }`,
      { id: session.userId },
    );
    expect(rows.data?.player).toEqual([{ ethereumAddress: placeholderAddress(session.userId), profile: { playerId: session.userId } }]);
  });

  it("gives a player whose wallet already belongs to another player the placeholder", async () => {
    const wallet = "0x1111111111111111111111111111111111111111";
    const taken = await platform.admin(
      `mutation { insert_player_one(object: {id: "00000000-0000-4000-8000-00000000aaaa", ethereumAddress: "${wallet}"}) { id } }`,
    );
    expect(taken.errors).toBeUndefined();
    const session = await auth.signUp();
    const registry = createPlayerRegistry({
      engine: createEngineClient(`${platform.engineUrl}/v1/graphql`, ADMIN_SECRET),
      profileQueue: { enqueue: async () => true, close: async () => {} },
    });
    expect(await registry.ensure(session.userId, wallet, createLogger({ level: "silent" }))).toBe(true);
    const row = await platform.admin<{ player_by_pk: { ethereumAddress: string } }>(
      `query P($id: uuid!) { player_by_pk(id: $id) { ethereumAddress } }`,
      {
        id: session.userId,
      },
    );
    expect(row.data?.player_by_pk.ethereumAddress).toBe(placeholderAddress(session.userId));
  });

  it("answers 502 in the backend's error shape when the auth service's keys cannot be fetched", async () => {
    const session = await auth.signUp();
    const backend = await startBackend(
      readBackendConfig({
        METAGAME_BACKEND_HOST: "127.0.0.1",
        METAGAME_BACKEND_PORT: "0",
        AUTH_JWKS_URL: "http://127.0.0.1:1/.well-known/jwks.json",
        AUTH_JWT_SECRET,
        AUTH_JWT_ISSUER: AUTH_ISSUER,
      }),
      createLogger({ level: "silent" }),
      { db: platform.scratch.db },
    );
    try {
      const response = await fetch(`${backend.url}/auth-webhook`, { headers: { authorization: `Bearer ${session.accessToken}` } });
      expect(response.status).toBe(502);
      expect(await response.json()).toEqual({
        message: expect.stringContaining("the auth service's keys could not be read"),
        extensions: { code: "upstream-error" },
      });
    } finally {
      await backend.close();
    }
  });
});
