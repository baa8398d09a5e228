/**
 * Players created on first sight, as MetaGame's webhook creates them
 * (packages/backend/src/handlers/auth-webhook/users.ts): the player and its empty profile
 * together, then a profile refresh queued. Here the player's id is the auth user's id, so
 * creation is one engine mutation inserting both rows with on_conflict do-nothing: concurrent
 * first requests (from any number of instances) all succeed and exactly one creates the rows,
 * and only that one queues the refresh.
 *
 * The webhook runs on every request the engine authenticates, so players known to exist are
 * remembered for a while and their requests make no engine call at all.
 */
import type { FastifyBaseLogger } from "fastify";
import type { BackendDeps } from "../app.js";
import { EngineRequestError } from "../engine-client.js";

/** How long a player known to exist is not checked again. */
const KNOWN_FOR_MS = 5 * 60_000;
const KNOWN_MAX = 10_000;

/**
 * The ethereum_address of a player who did not sign in with a wallet: `0x` + `0000` + the user
 * id (36 characters with its hyphens). It satisfies the column's CHECK `^0x([a-z0-9-]{40})$` and
 * the unique key (one per user), and the hyphens keep it from ever equalling a real address.
 */
export function placeholderAddress(userId: string): string {
  return `0x0000${userId.toLowerCase()}`;
}

const CREATE = /* GraphQL */ `
  mutation CreatePlayer($id: uuid!, $address: String!) {
    insert_player(objects: [{id: $id, ethereumAddress: $address}], on_conflict: {constraint: Player_pkey, update_columns: []}) {
      affected_rows
    }
    insert_profile(objects: [{playerId: $id}], on_conflict: {constraint: profile_player_id_key, update_columns: []}) {
      affected_rows
    }
  }
`;

interface Created {
  insert_player: { affected_rows: number };
  insert_profile: { affected_rows: number };
}

export interface PlayerRegistry {
  /** Makes sure the player (and profile) exist; true when this call created them. */
  ensure(userId: string, walletAddress: string | null, log: FastifyBaseLogger): Promise<boolean>;
}

export function createPlayerRegistry(deps: Pick<BackendDeps, "engine" | "profileQueue">, now = () => Date.now()): PlayerRegistry {
  const known = new Map<string, number>();
  const inFlight = new Map<string, Promise<boolean>>();

  function remember(userId: string): void {
    known.delete(userId);
    known.set(userId, now() + KNOWN_FOR_MS);
    // Map keeps insertion order: the first entry is the least recently confirmed.
    if (known.size > KNOWN_MAX) known.delete(known.keys().next().value as string);
  }

  async function create(userId: string, address: string): Promise<Created> {
    return deps.engine.request<Created>(CREATE, { id: userId, address });
  }

  async function createOnce(userId: string, walletAddress: string | null, log: FastifyBaseLogger): Promise<boolean> {
    let result: Created;
    try {
      result = await create(userId, walletAddress ?? placeholderAddress(userId));
    } catch (error) {
      // The wallet already belongs to another player (one created before this user signed in):
      // the user still gets a player, under the placeholder, and the clash is logged.
      if (!walletAddress || !(error instanceof EngineRequestError) || !/ethereum_address/i.test(error.message)) throw error;
      log.warn({ userId, walletAddress }, "the wallet address belongs to another player: the new player gets a placeholder");
      result = await create(userId, placeholderAddress(userId));
    }
    const created = result.insert_player.affected_rows > 0;
    if (created) {
      log.info({ playerId: userId, walletAddress }, "created a player on first sign-in");
      await deps.profileQueue
        .enqueue(userId)
        .catch((error: unknown) => log.warn({ err: error, playerId: userId }, "could not queue a profile refresh"));
    }
    return created;
  }

  return {
    async ensure(userId, walletAddress, log) {
      const until = known.get(userId);
      if (until !== undefined && until > now()) return false;
      let pending = inFlight.get(userId);
      if (!pending) {
        pending = createOnce(userId, walletAddress, log).finally(() => inFlight.delete(userId));
        inFlight.set(userId, pending);
      }
      const created = await pending;
      remember(userId);
      return created;
    },
  };
}
