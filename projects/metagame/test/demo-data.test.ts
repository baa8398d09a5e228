/**
 * The demo world loaded into the project's fresh database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): what was generated is what is stored, MetaGame's quest rules hold, the
 * documented players are who the module says, a second load does nothing, and the engine serves
 * the world to role `player`.
 */
import { type Sql, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_SCALE,
  type DemoWorld,
  demoId,
  demoPlayer,
  generateDemoWorld,
  loadDemoData,
  METAFAM_GUILD_ID,
  SHOWCASE,
} from "../demo/index.js";
import { startPlatform, type TestPlatform } from "./support/platform.js";

let platform: TestPlatform;
let loaded: boolean;
let loadMs: number;
let world: DemoWorld;

const rows = async <T = Record<string, unknown>>(query: Sql) => (await platform.scratch.db.query<T>(query)).rows;
const count = async (query: Sql) => Number((await rows<{ n: number | string }>(query))[0]?.n);
const tally = <T>(items: readonly T[], key: (item: T) => string) => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};

beforeAll(async () => {
  platform = await startPlatform();
  const started = performance.now();
  loaded = await loadDemoData(platform.scratch.db);
  loadMs = performance.now() - started;
  // The same world again, from the ids this database gave the seeded skills and DAO.
  const skills = await rows<{ id: string }>(sql`SELECT id FROM skill ORDER BY name, id`);
  const daos = await rows<{ id: string; guild_id: string | null }>(sql`SELECT id, guild_id FROM dao WHERE id::text NOT LIKE '00000000-%'`);
  world = generateDemoWorld(DEMO_SCALE, { skillIds: skills.map((s) => s.id), daos: daos.map((d) => ({ id: d.id, guildId: d.guild_id })) });
});
afterAll(() => platform?.close());

describe("loadDemoData", () => {
  it("loads into the empty project in one go, well under 2 s", () => {
    expect(loaded).toBe(true);
    console.log(`demo world loaded in ${loadMs.toFixed(0)} ms (${platform.scratch.db.kind})`);
    expect(loadMs).toBeLessThan(2000);
  });

  it("stores what the generator makes, table by table", async () => {
    const tables: Array<[string, Sql, number]> = [
      ["player", sql`SELECT count(*) AS n FROM player`, world.players.length],
      ["profile", sql`SELECT count(*) AS n FROM profile`, world.profiles.length],
      ["player_account", sql`SELECT count(*) AS n FROM player_account`, world.accounts.length],
      ["player_skill", sql`SELECT count(*) AS n FROM player_skill`, world.playerSkills.length],
      ["player_role", sql`SELECT count(*) AS n FROM player_role`, world.playerRoles.length],
      ["guild", sql`SELECT count(*) AS n FROM guild`, world.guilds.length + 2],
      ["guild_metadata", sql`SELECT count(*) AS n FROM guild_metadata`, world.guildMetadata.length + 1],
      ["dao", sql`SELECT count(*) AS n FROM dao`, world.daos.length + 1],
      ["guild_player", sql`SELECT count(*) AS n FROM guild_player`, world.guildPlayers.length],
      ["dao_player", sql`SELECT count(*) AS n FROM dao_player`, world.daoPlayers.length],
      ["quest", sql`SELECT count(*) AS n FROM quest`, world.quests.length],
      ["quest_role", sql`SELECT count(*) AS n FROM quest_role`, world.questRoles.length],
      ["quest_skill", sql`SELECT count(*) AS n FROM quest_skill`, world.questSkills.length],
      ["quest_completion", sql`SELECT count(*) AS n FROM quest_completion`, world.completions.length],
    ];
    for (const [name, query, expected] of tables) expect([name, await count(query)]).toEqual([name, expected]);
    expect(world.players).toHaveLength(50);
    expect(world.quests).toHaveLength(48);
    expect(world.completions).toHaveLength(150);
    expect(world.guilds.map((g) => g.guildname)).toEqual(["raidguild", "seedclub", "tavernkeepers", "metalab"]);
    // Counted in the database, per status and repetition, against the generator's own counts.
    const quests = await rows<{ status: string; repetition: string; n: number | string }>(
      sql`SELECT status, repetition, count(*) AS n FROM quest GROUP BY 1, 2`,
    );
    expect(Object.fromEntries(quests.map((q) => [`${q.repetition} ${q.status}`, Number(q.n)]))).toEqual(
      tally(world.quests, (q) => `${q.repetition} ${q.status}`),
    );
    const completions = await rows<{ status: string; n: number | string }>(
      sql`SELECT status, count(*) AS n FROM quest_completion GROUP BY 1`,
    );
    expect(Object.fromEntries(completions.map((c) => [c.status, Number(c.n)]))).toEqual(tally(world.completions, (c) => c.status));
  });

  it("has every quest status x repetition and every completion status, in several guilds", async () => {
    const combos = await rows<{ k: string }>(sql`SELECT DISTINCT repetition || ' ' || status AS k FROM quest ORDER BY 1`);
    expect(combos.map((c) => c.k)).toEqual([
      "PERSONAL CLOSED",
      "PERSONAL OPEN",
      "RECURRING CLOSED",
      "RECURRING OPEN",
      "UNIQUE CLOSED",
      "UNIQUE OPEN",
    ]);
    const statuses = await rows<{ status: string }>(sql`SELECT DISTINCT status FROM quest_completion ORDER BY 1`);
    expect(statuses.map((s) => s.status)).toEqual(["ACCEPTED", "PENDING", "REJECTED"]);
    expect(await count(sql`SELECT count(DISTINCT guild_id) AS n FROM quest`)).toBeGreaterThanOrEqual(3);
    const cooldowns = await rows<{ cooldown: number }>(sql`SELECT DISTINCT cooldown FROM quest WHERE cooldown IS NOT NULL ORDER BY 1`);
    expect(cooldowns.map((c) => c.cooldown)).toEqual([3600, 86400, 604800]);
  });

  it("keeps MetaGame's quest rules", async () => {
    const violations: Record<string, Sql> = {
      "cooldown exactly on RECURRING quests": sql`SELECT id FROM quest WHERE (repetition = 'RECURRING') <> (coalesce(cooldown, 0) > 0)`,
      "one completion per player of a UNIQUE or PERSONAL quest": sql`
        SELECT c.quest_id FROM quest_completion c JOIN quest q ON q.id = c.quest_id
        WHERE q.repetition <> 'RECURRING' GROUP BY c.quest_id, c.completed_by_player_id HAVING count(*) > 1`,
      "a RECURRING quest again only after its cooldown": sql`
        SELECT id FROM (
          SELECT c.id, q.cooldown, c.submitted_at - lag(c.submitted_at) OVER (PARTITION BY c.quest_id, c.completed_by_player_id ORDER BY c.submitted_at) AS gap
          FROM quest_completion c JOIN quest q ON q.id = c.quest_id WHERE q.repetition = 'RECURRING') s
        WHERE gap < make_interval(secs => cooldown)`,
      "an accepted UNIQUE quest is CLOSED with one ACCEPTED and the rest REJECTED": sql`
        SELECT q.id FROM quest q JOIN quest_completion c ON c.quest_id = q.id
        WHERE q.repetition = 'UNIQUE' GROUP BY q.id, q.status
        HAVING count(*) FILTER (WHERE c.status = 'ACCEPTED') > 0
           AND (q.status <> 'CLOSED' OR count(*) FILTER (WHERE c.status = 'ACCEPTED') <> 1 OR count(*) FILTER (WHERE c.status = 'PENDING') > 0)`,
      "nobody completes their own quest": sql`
        SELECT c.id FROM quest_completion c JOIN quest q ON q.id = c.quest_id WHERE c.completed_by_player_id = q.created_by_player_id`,
      "a completion has a link or a text, after its quest was posted": sql`
        SELECT c.id FROM quest_completion c JOIN quest q ON q.id = c.quest_id
        WHERE (c.submission_link IS NULL AND c.submission_text IS NULL) OR c.submitted_at <= q.created_at`,
      "quests only in active guilds": sql`SELECT q.id FROM quest q JOIN guild g ON g.id = q.guild_id WHERE g.status <> 'ACTIVE'`,
      "player roles ranked 1..n": sql`SELECT player_id FROM player_role GROUP BY player_id HAVING min(rank) <> 1 OR max(rank) <> count(*)`,
      "quest roles ranked 1..n": sql`SELECT quest_id FROM quest_role GROUP BY quest_id HAVING min(rank) <> 1 OR max(rank) <> count(*)`,
      "every player has a profile and an ETHEREUM account with their address": sql`
        SELECT p.id FROM player p LEFT JOIN profile f ON f.player_id = p.id
        LEFT JOIN player_account a ON a.player_id = p.id AND a.type = 'ETHEREUM' AND a.identifier = p.ethereum_address
        WHERE f.id IS NULL OR a.player_id IS NULL OR f.color_mask IS NULL OR f.explorer_type_title IS NULL OR f.username IS NULL`,
      "every player has skills and roles": sql`
        SELECT p.id FROM player p WHERE NOT EXISTS (SELECT 1 FROM player_skill s WHERE s.player_id = p.id)
           OR NOT EXISTS (SELECT 1 FROM player_role r WHERE r.player_id = p.id)`,
      "season XP within total XP": sql`SELECT id FROM player WHERE season_xp > total_xp`,
      "DAO members are members of the DAO's guild": sql`
        SELECT dp.player_id FROM dao_player dp JOIN dao d ON d.id = dp.dao_id
        WHERE NOT EXISTS (SELECT 1 FROM guild_player gp WHERE gp.guild_id = d.guild_id AND gp.player_id = dp.player_id)`,
    };
    for (const [rule, query] of Object.entries(violations)) expect([rule, await rows(query)]).toEqual([rule, []]);
  });

  it("has the players and quests the module documents", async () => {
    const nova = demoPlayer(1);
    expect(nova).toEqual({
      id: "00000000-0000-4000-8001-000000000001",
      username: "nova",
      address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
    });
    const [top] = await rows<{ id: string; rank: string; total_xp: string | number; username: string; ethereum_address: string }>(
      sql`SELECT p.id, p.rank, p.total_xp, f.username, p.ethereum_address FROM player p JOIN profile f ON f.player_id = p.id ORDER BY p.total_xp DESC LIMIT 1`,
    );
    expect({ ...top, total_xp: Number(top?.total_xp) }).toEqual({
      id: nova.id,
      rank: "DIAMOND",
      total_xp: 25000,
      username: "nova",
      ethereum_address: nova.address,
    });
    const founders = await rows<{ guildname: string; creator_id: string; status: string }>(
      sql`SELECT g.guildname, m.creator_id, g.status FROM guild_metadata m JOIN guild g ON g.id = m.guild_id WHERE m.creator_id IS NOT NULL ORDER BY g.sort_position`,
    );
    expect(founders).toEqual([
      { guildname: "raidguild", creator_id: demoId("player", 1), status: "ACTIVE" },
      { guildname: "seedclub", creator_id: demoId("player", 2), status: "ACTIVE" },
      { guildname: "tavernkeepers", creator_id: demoId("player", 3), status: "ACTIVE" },
      { guildname: "metalab", creator_id: demoId("player", 4), status: "PENDING" },
    ]);
    const showcase = await rows<{
      id: string;
      repetition: string;
      status: string;
      created_by_player_id: string;
      guild_id: string;
      done: string[];
    }>(sql`
      SELECT q.id, q.repetition, q.status, q.created_by_player_id, q.guild_id,
             array(SELECT DISTINCT c.status FROM quest_completion c WHERE c.quest_id = q.id ORDER BY 1) AS done
      FROM quest q WHERE q.id = ANY(${SHOWCASE.map((_, i) => demoId("quest", i + 1))}::uuid[]) ORDER BY q.id`);
    expect(showcase.map((q) => [q.repetition, q.status, q.created_by_player_id, q.guild_id])).toEqual(
      SHOWCASE.map(([repetition, status], i) => [repetition, status, demoId("player", (i % 2) + 1), METAFAM_GUILD_ID]),
    );
    expect(showcase[0]?.done).toEqual(["PENDING", "REJECTED"]);
    expect(showcase[1]?.done).toEqual(["ACCEPTED", "REJECTED"]);
  });

  it("loads only into a project without players: a second load does nothing", async () => {
    expect(await loadDemoData(platform.scratch.db)).toBe(false);
    expect(await count(sql`SELECT count(*) AS n FROM player`)).toBe(50);
    expect(await count(sql`SELECT count(*) AS n FROM quest_completion`)).toBe(150);
  });

  it("delivers the world's events to MetaGame's trigger handlers, each once, as the admin who loaded it", async () => {
    const roles = await count(sql`SELECT count(*) AS n FROM player_role`);
    const pending = sql`SELECT count(*) AS n FROM hdb_catalog.event_log WHERE NOT delivered AND NOT error`;
    const deadline = Date.now() + 20_000;
    while ((await count(pending)) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const byTrigger = await rows<{ trigger_name: string; delivered: number; failed: number; attempts: number }>(sql`
      SELECT trigger_name, count(*) FILTER (WHERE delivered)::int AS delivered, count(*) FILTER (WHERE error)::int AS failed,
        sum(tries)::int AS attempts
      FROM hdb_catalog.event_log GROUP BY trigger_name ORDER BY trigger_name`);
    expect(byTrigger).toEqual([
      { trigger_name: "cacheIDXProfile", delivered: 50, failed: 0, attempts: 50 },
      { trigger_name: "playerRoleChanged", delivered: roles, failed: 0, attempts: roles },
    ]);
    const sessions = await rows<{ role: string }>(
      sql`SELECT DISTINCT payload -> 'session_variables' ->> 'x-hasura-role' AS role FROM hdb_catalog.event_log`,
    );
    expect(sessions).toEqual([{ role: "admin" }]);
  });

  it("is the same world every time it is generated", async () => {
    const skills = (await rows<{ id: string }>(sql`SELECT id FROM skill ORDER BY name, id`)).map((s) => s.id);
    const again = generateDemoWorld(DEMO_SCALE, { skillIds: skills, daos: [] });
    expect(again.players).toEqual(world.players);
    expect(again.quests).toEqual(world.quests);
    expect(again.completions).toEqual(world.completions);
  });
});

describe("the demo world through the engine", () => {
  it("serves a player's profile page to role player", async () => {
    const viewer = demoPlayer(2).id;
    const answer = await platform.asPlayer<{
      player: Array<{
        id: string;
        rank: string;
        profile: { username: string; colorAspect: { mask: number; name: string }; explorerType: { title: string } };
        roles: Array<{ rank: number; PlayerRole: { role: string } }>;
        skills: Array<{ Skill: { name: string } }>;
        guilds: Array<{ Guild: { guildname: string } }>;
        accounts: Array<{ type: string; identifier: string }>;
        quests: Array<{ id: string; status: string }>;
        quest_completions: Array<{ status: string; quest: { title: string } }>;
      }>;
    }>(
      viewer,
      `query ($username: String!) {
        player(where: {profile: {username: {_ilike: $username}}}) {
          id rank
          profile { username colorAspect { mask name } explorerType { title } }
          roles(order_by: {rank: asc}) { rank PlayerRole { role } }
          skills { Skill { name } }
          guilds { Guild { guildname } }
          accounts(where: {type: {_eq: ETHEREUM}}) { type identifier }
          quests(order_by: {createdAt: desc}) { id status }
          quest_completions(order_by: {submittedAt: desc}) { status quest { title } }
        }
      }`,
      { username: "NOVA" },
    );
    expect(answer.errors).toBeUndefined();
    const [nova] = answer.data?.player ?? [];
    const mine = world.players[0];
    const profile = world.profiles[0];
    expect(nova?.id).toBe(mine?.id);
    expect(nova?.rank).toBe("DIAMOND");
    expect(nova?.profile.username).toBe("nova");
    expect(nova?.profile.colorAspect.mask).toBe(profile?.colorMask);
    expect(nova?.profile.explorerType.title).toBe(profile?.explorerTypeTitle);
    expect(nova?.roles.map((r) => [r.rank, r.PlayerRole.role])).toEqual(
      world.playerRoles.filter((r) => r.ownerId === mine?.id).map((r) => [r.rank, r.role]),
    );
    expect(nova?.skills).toHaveLength(world.playerSkills.filter((s) => s.playerId === mine?.id).length);
    expect(nova?.guilds.map((g) => g.Guild.guildname)).toContain("raidguild");
    expect(nova?.accounts).toEqual([{ type: "ETHEREUM", identifier: demoPlayer(1).address }]);
    expect(nova?.quests.map((q) => q.id).sort()).toEqual(
      world.quests
        .filter((q) => q.createdByPlayerId === mine?.id)
        .map((q) => q.id)
        .sort(),
    );
    expect(nova?.quest_completions.length).toBe(world.completions.filter((c) => c.completedByPlayerId === mine?.id).length);
    expect(nova?.quest_completions.every((c) => c.quest.title.length > 0)).toBe(true);
  });

  it("lets a reviewer find the PENDING completions of the quests they posted", async () => {
    const answer = await platform.asPlayer<{ quest: Array<{ id: string; quest_completions: Array<{ status: string }> }> }>(
      demoPlayer(1).id,
      `query ($me: uuid!) {
        quest(where: {createdByPlayerId: {_eq: $me}, status: {_eq: OPEN}, quest_completions: {status: {_eq: PENDING}}}, order_by: {id: asc}) {
          id quest_completions(where: {status: {_eq: PENDING}}) { status }
        }
      }`,
      { me: demoPlayer(1).id },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.quest[0]?.id).toBe(demoId("quest", 1));
    expect(answer.data?.quest.every((q) => q.quest_completions.length > 0)).toBe(true);
  });
});
