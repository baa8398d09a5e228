/**
 * The measured operation, once in Hasura's naming (our engine) and once in PostGraphile's
 * (simplify-inflection + connection-filter; `rowId` is the key column, `id` being its Node id): authors of one country by reputation, their recent
 * posts with category, each post's comment count and newest comments with their accounts.
 * Three levels of nesting, filters on two of them, ordering on all three, one aggregate.
 */

export const OURS_QUERY = `query Bench($country: String!, $since: timestamptz!) {
  author(where: {country: {_eq: $country}}, order_by: [{reputation: desc}, {id: asc}], limit: 10) {
    id name reputation
    posts(where: {published_at: {_gte: $since}}, order_by: [{published_at: desc}, {id: desc}], limit: 5) {
      id title published_at
      category { name }
      comments_aggregate { aggregate { count } }
      comments(order_by: {id: desc}, limit: 3) { id body account { name } }
    }
  }
}`;

export const POSTGRAPHILE_QUERY = `query Bench($country: String!, $since: Datetime!) {
  authors(condition: {country: $country}, orderBy: [REPUTATION_DESC, ROW_ID_ASC], first: 10) {
    nodes {
      rowId name reputation
      authoredPosts(
        filter: {publishedAt: {greaterThanOrEqualTo: $since}}, orderBy: [PUBLISHED_AT_DESC, ROW_ID_DESC], first: 5
      ) {
        nodes {
          rowId title publishedAt
          category { name }
          comments(orderBy: ROW_ID_DESC, first: 3) { totalCount nodes { rowId body account { name } } }
        }
      }
    }
  }
}`;

export interface BenchVariables {
  country: string;
  since: string;
}

/** 50 countries x 6 start dates: requests rotate through them so no single answer is measured. */
export function variableSets(): BenchVariables[] {
  return Array.from({ length: 50 }, (_, i) => ({
    country: `C${String(i).padStart(2, "0")}`,
    since: `2025-0${1 + (i % 6)}-01T00:00:00Z`,
  }));
}

const table = (name: string) => ({ schema: "public", name });
const objectRel = (on: string, name: string, column: string) => ({
  type: "pg_create_object_relationship",
  args: { source: "default", table: table(on), name, using: { foreign_key_constraint_on: column } },
});
const arrayRel = (on: string, name: string, from: string, column: string) => ({
  type: "pg_create_array_relationship",
  args: { source: "default", table: table(on), name, using: { foreign_key_constraint_on: { table: table(from), column } } },
});

/** One bulk call: start from empty metadata (the database keeps it between runs), track, relate. */
export function trackingRequest(): unknown {
  const tables = ["category", "author", "account", "post", "comment"];
  return {
    type: "bulk",
    args: [
      { type: "clear_metadata", args: {} },
      ...tables.map((name) => ({ type: "pg_track_table", args: { source: "default", table: table(name) } })),
      arrayRel("author", "posts", "post", "author_id"),
      arrayRel("category", "posts", "post", "category_id"),
      arrayRel("post", "comments", "comment", "post_id"),
      arrayRel("account", "comments", "comment", "account_id"),
      objectRel("post", "author", "author_id"),
      objectRel("post", "category", "category_id"),
      objectRel("comment", "post", "post_id"),
      objectRel("comment", "account", "account_id"),
    ],
  };
}

/**
 * The answer reduced to what both servers must agree on: author ids, their post ids, each
 * post's comment count and newest comment ids. Used to check the two queries are equivalent.
 */
export function fingerprint(body: unknown): string {
  const data = (body as { data?: Record<string, unknown> }).data;
  if (!data) return `no data: ${JSON.stringify(body).slice(0, 300)}`;
  type Row = Record<string, unknown>;
  const list = (value: unknown): Row[] => (Array.isArray(value) ? value : ((value as { nodes?: Row[] })?.nodes ?? [])) as Row[];
  const authors = list(data.author ?? data.authors);
  return JSON.stringify(
    authors.map((a) => [
      a.id ?? a.rowId,
      list(a.posts ?? a.authoredPosts).map((p) => {
        const comments = p.comments as Row | Row[];
        const count = (p.comments_aggregate as { aggregate?: { count?: number } })?.aggregate?.count ?? (comments as Row).totalCount;
        return [p.id ?? p.rowId, count, list(comments).map((c) => c.id ?? c.rowId)];
      }),
    ]),
  );
}
