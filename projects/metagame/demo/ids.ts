/**
 * Ids of the demo world, computed rather than random, so that a player, guild or quest has the
 * same id in every database the demo is loaded into and tests, the README and other modules can
 * name them. A UUID's fourth group says which table it belongs to (8001 players, 8002 profiles,
 * ...) and its last group is the 1-based number of the row in hex:
 * player 1 is `00000000-0000-4000-8001-000000000001`.
 */
import { createHash } from "node:crypto";

const KINDS = {
  player: "8001",
  profile: "8002",
  guild: "8003",
  dao: "8004",
  quest: "8005",
  completion: "8006",
  playerSkill: "8007",
} as const;

export type DemoIdKind = keyof typeof KINDS;

/** The id of row `n` (1-based) of one kind. */
export function demoId(kind: DemoIdKind, n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`demo ids are numbered from 1, got ${n}`);
  return `00000000-0000-4000-${KINDS[kind]}-${n.toString(16).padStart(12, "0")}`;
}

/**
 * A lower-case 0x address (the schema's `^0x([a-z0-9-]{40})$` check) derived from a hash of the
 * row's kind and number, so it is stable and looks like any other address.
 */
export function demoAddress(kind: "player" | "dao", n: number): string {
  return `0x${createHash("sha256").update(`metagame-demo:${kind}:${n}`).digest("hex").slice(0, 40)}`;
}

/** A Discord snowflake-like id (18 digits), distinct per kind and number. */
export function demoDiscordId(kind: "player" | "guild" | "role", n: number): string {
  const prefix = { player: "910", guild: "920", role: "930" }[kind];
  return `${prefix}${String(n).padStart(15, "0")}`;
}
