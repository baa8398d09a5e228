/**
 * createQuest through the engine: MetaGame's rules in order, with its messages, answered as
 * `{success: false, error}`; the pSEED token gate against a JSON-RPC stand-in (threshold 100);
 * the insert with ranked roles and skills, read back through the output's `quest` relationship.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayer, type StandIn, startStandIn } from "./support/actions-support.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

const METAFAM = "f94b7cd4-cf29-4251-baa5-eaacab98a719";
const TOKEN = 10n ** 18n;

let platform: TestPlatform;
let rpc: StandIn;
/** pSEED balances (in the token's smallest unit) by lower-case address, as the stand-in chain holds them. */
const balances = new Map<string, bigint>();

beforeAll(async () => {
  rpc = await startStandIn((request) => {
    const call = JSON.parse(request.body) as { id: number; method: string; params: [{ to: string; data: string }, string] };
    const [{ data }] = call.params;
    const word = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}`;
    if (data === "0x313ce567") return { json: { jsonrpc: "2.0", id: call.id, result: word(18n) } };
    const owner = `0x${data.slice(-40)}`;
    return { json: { jsonrpc: "2.0", id: call.id, result: word(balances.get(owner) ?? 0n) } };
  });
  platform = await startPlatform({ backendEnv: { PSEED_FOR_QUEST: "100", PSEED_RPC_URL: rpc.url } });
});
afterAll(async () => {
  await platform?.close();
  await rpc?.close();
});

const CREATE = `mutation ($quest: CreateQuestInput!) {
  createQuest(quest: $quest) { success error quest_id quest { title repetition cooldown status createdByPlayerId guildId quest_roles(order_by: {rank: asc}) { role rank } quest_skills { skillId } } }
}`;

type Answer = {
  createQuest: {
    success: boolean;
    error: string | null;
    quest_id: string | null;
    quest: null | {
      title: string;
      repetition: string;
      cooldown: number | null;
      status: string;
      createdByPlayerId: string;
      guildId: string;
      quest_roles: Array<{ role: string; rank: number }>;
      quest_skills: Array<{ skillId: string }>;
    };
  };
};

const quest = (extra: Record<string, unknown> = {}) => ({ guildId: METAFAM, title: "Write docs", roleIds: [], skillIds: [], ...extra });

describe("createQuest", () => {
  it("refuses every role but player", async () => {
    const answer = await platform.admin<Answer>(CREATE, { quest: quest() });
    expect(answer.data?.createQuest).toMatchObject({ success: false, error: "Expected player role", quest_id: null });
  });

  it("checks the cooldown against the repetition, before looking at the player", async () => {
    const nobody = "00000000-0000-4000-8000-00000000abcd";
    const recurring = await platform.asPlayer<Answer>(nobody, CREATE, { quest: quest({ repetition: "RECURRING" }) });
    expect(recurring.errors).toBeUndefined();
    expect(recurring.data?.createQuest).toMatchObject({ success: false, error: "Recurring quests need to have a cooldown" });
    const zero = await platform.asPlayer<Answer>(nobody, CREATE, { quest: quest({ repetition: "RECURRING", cooldown: 0 }) });
    expect(zero.data?.createQuest.error).toBe("Recurring quests need to have a cooldown");
    const unique = await platform.asPlayer<Answer>(nobody, CREATE, { quest: quest({ cooldown: 60 }) });
    expect(unique.data?.createQuest).toMatchObject({ success: false, error: "Non recurring quests cannot have a cooldown" });
    const personal = await platform.asPlayer<Answer>(nobody, CREATE, { quest: quest({ repetition: "PERSONAL", cooldown: 60 }) });
    expect(personal.data?.createQuest.error).toBe("Non recurring quests cannot have a cooldown");
    const missing = await platform.asPlayer<Answer>(nobody, CREATE, { quest: quest() });
    expect(missing.data?.createQuest).toMatchObject({ success: false, error: "Ethereum address not found for player" });
    expect(rpc.requests).toHaveLength(0);
  });

  it("refuses a player holding less pSEED than the threshold, reading the balance over JSON-RPC", async () => {
    const player = await createPlayer(platform.admin);
    balances.set(player.address, 100n * TOKEN - 1n);
    const before = rpc.requests.length;
    const answer = await platform.asPlayer<Answer>(player.id, CREATE, { quest: quest() });
    expect(answer.data?.createQuest).toMatchObject({ success: false, error: "Player not allowed to create quests", quest_id: null });
    const calls = rpc.requests.slice(before).map((r) => JSON.parse(r.body) as { method: string; params: [{ to: string; data: string }] });
    expect(calls.map((c) => c.method)).toEqual(["eth_call", "eth_call"]);
    expect(calls[0]?.params[0]).toEqual({
      to: "0x8a8fcd351ed553fc75aecbc566a32f94471f302e",
      data: `0x70a08231${player.address.slice(2).padStart(64, "0")}`,
    });
    const count = await platform.admin<{ quest_aggregate: { aggregate: { count: number } } }>(
      `query ($id: uuid!) { quest_aggregate(where: {createdByPlayerId: {_eq: $id}}) { aggregate { count } } }`,
      { id: player.id },
    );
    expect(count.data?.quest_aggregate.aggregate.count).toBe(0);
  });

  it("creates the quest of a player at the threshold, with roles ranked by position and its skills", async () => {
    const player = await createPlayer(platform.admin);
    balances.set(player.address, 100n * TOKEN);
    const skills = await platform.admin<{ skill: Array<{ id: string }> }>(`{ skill(limit: 2, order_by: {name: asc}) { id } }`);
    const skillIds = skills.data?.skill.map((s) => s.id) ?? [];
    const answer = await platform.asPlayer<Answer>(player.id, CREATE, {
      quest: quest({ repetition: "RECURRING", cooldown: 3600, roleIds: ["BUILDER", "ARTIST"], skillIds, description: "all of it" }),
    });
    expect(answer.errors).toBeUndefined();
    const created = answer.data?.createQuest;
    expect(created).toMatchObject({ success: true, error: null });
    expect(created?.quest_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created?.quest).toMatchObject({
      title: "Write docs",
      repetition: "RECURRING",
      cooldown: 3600,
      status: "OPEN",
      createdByPlayerId: player.id,
      guildId: METAFAM,
      quest_roles: [
        { role: "BUILDER", rank: 1 },
        { role: "ARTIST", rank: 2 },
      ],
    });
    expect(created?.quest?.quest_skills.map((s) => s.skillId).sort()).toEqual([...skillIds].sort());
  });

  it("defaults the repetition to UNIQUE", async () => {
    const player = await createPlayer(platform.admin);
    balances.set(player.address, 500n * TOKEN);
    const answer = await platform.asPlayer<Answer>(player.id, CREATE, { quest: quest() });
    expect(answer.data?.createQuest.quest).toMatchObject({ repetition: "UNIQUE", cooldown: null, quest_roles: [], quest_skills: [] });
  });

  it("answers the engine's foreign-key message for an unknown guild or role, and writes nothing", async () => {
    const player = await createPlayer(platform.admin);
    balances.set(player.address, 100n * TOKEN);
    const guild = await platform.asPlayer<Answer>(player.id, CREATE, { quest: quest({ guildId: "00000000-0000-4000-8000-000000000000" }) });
    expect(guild.errors).toBeUndefined();
    expect(guild.data?.createQuest.success).toBe(false);
    expect(guild.data?.createQuest.error).toMatch(/^Foreign key violation\. .*"quest_guild_id_fkey"/);
    const role = await platform.asPlayer<Answer>(player.id, CREATE, { quest: quest({ roleIds: ["BUILDER", "NO_SUCH_ROLE"] }) });
    expect(role.data?.createQuest.success).toBe(false);
    expect(role.data?.createQuest.error).toMatch(/^Foreign key violation\. .*"quest_role_role_fkey"/);
    const count = await platform.admin<{ quest_aggregate: { aggregate: { count: number } } }>(
      `query ($id: uuid!) { quest_aggregate(where: {createdByPlayerId: {_eq: $id}}) { aggregate { count } } }`,
      { id: player.id },
    );
    expect(count.data?.quest_aggregate.aggregate.count).toBe(0);
  });
});
