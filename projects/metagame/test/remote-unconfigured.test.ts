/**
 * The remote schema with no provider configured (and BrightID unreachable): every field answers
 * its empty value without an error, through the engine. Also the endpoint's own answers to bad
 * requests, and BrightID's failure modes (slow, failing, odd bodies) against a real stand-in.
 */
import { createLogger } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackendDeps } from "../backend/src/app.js";
import { readBackendConfig } from "../backend/src/config.js";
import { getBrightIdStatus } from "../backend/src/remote/brightid.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";
import { startStandIn } from "./support/stand-in.js";
import { SETUP_TIMEOUT_MS } from "./support/timeouts.js";

const PLAYER = "1a2b3c4d-0000-4000-8000-000000000001";
const GUILD = "1a2b3c4d-0000-4000-8000-0000000000aa";

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startPlatform({ backendEnv: { BRIGHTID_APP_URL: "http://127.0.0.1:1" } });
  const seeded = await platform.admin(
    `mutation Seed($player: uuid!, $guild: uuid!) {
      insert_player_one(object: {id: $player, ethereumAddress: "0x00000000000000000000000000000000000000cc", discordId: "800000000000000009"}) { id }
      insert_guild_one(object: {id: $guild, guildname: "offline", name: "Offline", type: SOCIAL, discordId: "900000000000000009"}) { id }
      insert_guild_metadata_one(object: {guildId: $guild, discordId: "900000000000000009"}) { guildId }
      insert_guild_player_one(object: {guildId: $guild, playerId: $player}) { guildId }
    }`,
    { player: PLAYER, guild: GUILD },
  );
  expect(seeded.errors).toBeUndefined();
}, SETUP_TIMEOUT_MS);

afterAll(() => platform?.close());

const remote = (body: unknown, contentType = "application/json") =>
  fetch(`${platform.backend.url}/remote-schemas/graphql`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("the remote schema without providers", () => {
  it("is consistent in the engine", async () => {
    expect(await platform.metadata("get_inconsistent_metadata")).toMatchObject({ is_consistent: true });
  });

  it("gives every relationship and root field its empty value, without errors", async () => {
    const answer = await platform.admin(
      `query All($player: uuid!, $guild: uuid!) {
        player_by_pk(id: $player) { brightid_status { unique } daohausMemberships { id } token_balances { id } }
        guild_by_pk(id: $guild) { discordAnnouncements metadata { discordRoles { id } } guild_players { discordRoles { id } } }
        getTopPSeedHolders(limit: 5) { id }
        getPSeedInfo { priceUsd }
        getGuildDiscordRoles(guildDiscordId: "900000000000000009") { id }
        getDiscordServerMemberRoles(guildId: $guild, playerId: $player) { id }
        getTokenBalances(address: "0x00000000000000000000000000000000000000cc") { id }
        getDaoHausMemberships(memberAddress: "0x00000000000000000000000000000000000000cc") { id }
        getBrightIdStatus(contextId: $player) { unique }
        empty: getBrightIdStatus { unique }
      }`,
      { player: PLAYER, guild: GUILD },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      player_by_pk: { brightid_status: null, daohausMemberships: [], token_balances: null },
      guild_by_pk: { discordAnnouncements: [], metadata: { discordRoles: [] }, guild_players: [{ discordRoles: [] }] },
      getTopPSeedHolders: [],
      getPSeedInfo: null,
      getGuildDiscordRoles: [],
      getDiscordServerMemberRoles: [],
      getTokenBalances: null,
      getDaoHausMemberships: [],
      getBrightIdStatus: null,
      empty: null,
    });
  });
});

describe("POST /remote-schemas/graphql", () => {
  it("answers the engine's introspection", async () => {
    const response = await remote({ query: '{ __type(name: "TokenBalances") { fields { name } } }' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: { __type: { fields: [{ name: "id" }, { name: "seedBalance" }, { name: "pSeedBalance" }] } },
    });
  });

  it("refuses a body that is not a GraphQL request in the backend's error shape", async () => {
    for (const [body, type] of [
      [{ variables: {} }, "application/json"],
      ["{not json", "application/json"],
      [{ query: "" }, "application/json"],
      [{ query: "{ getPSeedInfo { priceUsd } }", variables: "x" }, "application/json"],
      ["query=x", "text/plain"],
    ] as const) {
      const response = await remote(body, type);
      expect(response.status).toBe(400);
      const error = (await response.json()) as { message: string; extensions: { code: string } };
      expect(error.message).toEqual(expect.any(String));
      expect(error.extensions.code).toEqual(expect.any(String));
    }
  });

  it("answers GraphQL errors with 200 and `errors`", async () => {
    const parseError = (await (await remote({ query: "{ getPSeedInfo {" })).json()) as { errors: Array<{ message: string }> };
    expect(parseError.errors[0]?.message).toMatch(/^Syntax Error/);
    const invalid = (await (await remote({ query: "{ nope }" })).json()) as { errors: Array<{ message: string }> };
    expect(invalid.errors[0]?.message).toBe('Cannot query field "nope" on type "Query".');
    const badUuid = await remote({
      query: "query Q($id: uuid) { getBrightIdStatus(contextId: $id) { unique } }",
      variables: { id: "not-a-uuid" },
    });
    expect(badUuid.status).toBe(200);
    const body = (await badUuid.json()) as { data?: unknown; errors: Array<{ message: string }> };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]?.message).toContain("expected a UUID");
  });
});

describe("BrightID's failures are null", () => {
  it("covers a slow node, an error status, a body that is not JSON, and data of the wrong shape", async () => {
    const id = "1a2b3c4d-0000-4000-8000-00000000000f";
    const modes = ["slow", "error", "text", "shape", "ok"];
    let mode = "";
    const stand = await startStandIn(() => {
      if (mode === "slow") return { delayMs: 2_000, body: { data: {} } };
      if (mode === "error") return { status: 500, body: { error: true } };
      if (mode === "text") return { body: "<html>" };
      if (mode === "shape") return { body: { data: { unique: "yes" } } };
      return { body: { data: { unique: false, app: "MetaGame", context: "MetaGame", contextIds: [] } } };
    });
    try {
      const config = readBackendConfig({ BRIGHTID_APP_URL: stand.url });
      const context = { deps: { config, fetch } as unknown as BackendDeps, log: createLogger({ level: "silent" }) };
      const answers: unknown[] = [];
      for (const m of modes) {
        mode = m;
        const started = Date.now();
        answers.push(await getBrightIdStatus(id, context, 300));
        expect(Date.now() - started).toBeLessThan(1_500);
      }
      expect(answers).toEqual([null, null, null, null, { unique: false, app: "MetaGame", context: "MetaGame", contextIds: [] }]);
      expect(stand.received.map((r) => r.path)).toEqual(modes.map(() => `/node/v5/verifications/MetaGame/${id}`));
    } finally {
      await stand.close();
    }
  });
});
