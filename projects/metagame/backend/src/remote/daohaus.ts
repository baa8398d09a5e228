/**
 * `getDaoHausMemberships`: the DAOhaus (Moloch v2) subgraph's `members` of an address that have
 * neither rage-quit nor left, as MetaGame asks its mainnet subgraph
 * (packages/backend/src/handlers/remote-schemas/resolvers/daohaus/). One subgraph is configured
 * (DAOHAUS_GRAPH_URL), taken to be the Ethereum mainnet one, so `moloch.chain` is "ethereum".
 * MetaGame also fetched each DAO's title and avatar from DAOhaus' metadata service; with no such
 * service configured here `title` and `avatarURL` are null. A failing subgraph gives an empty
 * list (logged), as MetaGame drops a chain whose query fails.
 */
import type { RemoteContext } from "./context.js";
import { isEthereumAddress, ProviderError, requestJson } from "./http-json.js";

export const DAOHAUS_CHAIN = "ethereum";

const MEMBERS_QUERY = /* GraphQL */ `
  query Memberships($memberAddress: Bytes!) {
    members(where: { memberAddress: $memberAddress, didRagequit: false, exists: true }) {
      id
      createdAt
      molochAddress
      memberAddress
      delegateKey
      shares
      loot
      exists
      kicked
      moloch { id summoner totalShares totalLoot version }
    }
  }
`;

interface SubgraphMember {
  id: string;
  createdAt: string;
  molochAddress: string;
  memberAddress: string;
  delegateKey: string;
  shares: string;
  loot: string | null;
  exists: boolean;
  kicked: boolean | null;
  moloch: { id: string; summoner: string; totalShares: string; totalLoot: string; version: string | null };
}

export async function getDaoHausMemberships(memberAddress: string | null | undefined, context: RemoteContext) {
  const url = context.deps.config.daohausGraphUrl;
  if (!url || !isEthereumAddress(memberAddress)) return [];
  try {
    const body = await requestJson<{ data?: { members?: SubgraphMember[] }; errors?: Array<{ message: string }> }>(context.deps.fetch, {
      provider: "DAOhaus subgraph",
      url,
      method: "POST",
      body: { query: MEMBERS_QUERY, variables: { memberAddress: memberAddress.toLowerCase() } },
    });
    if (body?.errors?.length) throw new ProviderError("DAOhaus subgraph", body.errors.map((e) => e.message).join("; "));
    return (body?.data?.members ?? []).map((member) => ({
      ...member,
      moloch: { ...member.moloch, chain: DAOHAUS_CHAIN, title: null, avatarURL: null },
    }));
  } catch (error) {
    context.log.warn({ err: error, memberAddress }, "could not read DAOhaus memberships");
    return [];
  }
}
