/**
 * createQuest's token gate under other settings: a threshold of 0 reads no balance at all (unlike
 * MetaGame); production's threshold of 100 without a JSON-RPC endpoint refuses; a JSON-RPC endpoint
 * answering an error gives a clear error, not a refusal and not a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayer, type Instance, type StandIn, startInstance, startStandIn } from "./support/actions-support.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

const METAFAM = "f94b7cd4-cf29-4251-baa5-eaacab98a719";
const CREATE = `mutation ($quest: CreateQuestInput!) { createQuest(quest: $quest) { success error quest_id } }`;
const quest = { guildId: METAFAM, title: "Gate", roleIds: [], skillIds: [] };

type Answer = { createQuest: { success: boolean; error: string | null; quest_id: string | null } };

let platform: TestPlatform;
let counting: StandIn;
let failing: StandIn;
let production: Instance;
let broken: Instance;

beforeAll(async () => {
  counting = await startStandIn(() => ({ json: { jsonrpc: "2.0", id: 1, result: `0x${"0".repeat(64)}` } }));
  failing = await startStandIn(() => ({ json: { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "header not found" } } }));
  // APP_ENV is not production: the threshold is 0, with an endpoint configured all the same.
  platform = await startPlatform({ backendEnv: { PSEED_RPC_URL: counting.url } });
  production = await startInstance(platform.scratch.db, { APP_ENV: "production" });
  broken = await startInstance(platform.scratch.db, { PSEED_FOR_QUEST: "100", PSEED_RPC_URL: failing.url });
});
afterAll(async () => {
  await broken?.close();
  await production?.close();
  await platform?.close();
  await counting?.close();
  await failing?.close();
});

describe("createQuest's token gate", () => {
  it("reads no balance when the threshold is 0", async () => {
    const player = await createPlayer(platform.admin);
    const answer = await platform.asPlayer<Answer>(player.id, CREATE, { quest });
    expect(answer.data?.createQuest).toMatchObject({ success: true, error: null });
    expect(counting.requests).toHaveLength(0);
  });

  it("refuses when production's threshold applies and no JSON-RPC endpoint is configured", async () => {
    const player = await createPlayer(production.admin);
    const answer = await production.asPlayer<Answer>(player.id, CREATE, { quest });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.createQuest).toEqual({ success: false, error: "Player not allowed to create quests", quest_id: null });
  });

  it("answers a JSON-RPC error as a clear error", async () => {
    const player = await createPlayer(broken.admin);
    const answer = await broken.asPlayer<Answer>(player.id, CREATE, { quest });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.createQuest).toEqual({
      success: false,
      error: "the pSEED balance could not be read: header not found",
      quest_id: null,
    });
    expect(failing.requests).toHaveLength(1);
  });
});
