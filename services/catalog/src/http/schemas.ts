/**
 * JSON schemas of the routes' parameters: the single source of validation (validation.ts) and of
 * the parameters in the OpenAPI document (openapi.ts). `enum` lists the values a handler accepts;
 * validation does not enforce it, because the handlers answer other values with the original's 400.
 */
import { FIELDS } from "../domain/catalog.js";
import { INTERVALS } from "../domain/dynamics.js";
import { SORTS } from "../domain/product-index.js";
import type { ObjectSchema, ParamSchema } from "./validation.js";

/** Values of /products/common/count `scope` (compared after trimming and lower-casing). */
export const SCOPES = ["stores", "regions"] as const;
export const OBSERVED_SORTS = ["observed_at_desc", "observed_at_asc"] as const;

const described = (schema: ParamSchema, description?: string): ParamSchema => (description ? { ...schema, description } : schema);
const text = (description?: string): ParamSchema => described({ type: "string" }, description);
const integer = (description?: string): ParamSchema => described({ type: "integer" }, description);
const flag = (description: string): ParamSchema => ({ type: "boolean", description });
const repeated = (description: string): ParamSchema => ({ type: "array", items: { type: "string" }, description });
const choice = (values: readonly string[], description: string, fallback?: string): ParamSchema => ({
  type: "string",
  enum: values,
  ...(fallback === undefined ? {} : { default: fallback }),
  description,
});
/** Required and non-empty, as the original's `Query(..., min_length=1)`. */
const needed = (schema: ParamSchema): ParamSchema => ({ ...schema, minLength: 1 });
const instant = (description: string): ParamSchema => needed({ type: "string", format: "date-time", description });

export const paging = {
  limit: { type: "integer", default: 20, minimum: 1, maximum: 100, description: "page size" },
  offset: { type: "integer", default: 0, minimum: 0, description: "items to skip" },
} satisfies Record<string, ParamSchema>;

const object = (properties: Record<string, ParamSchema>, required: string[] = []): ObjectSchema => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
});

export const productId = object({ canonical_product_id: text("canonical product id") }, ["canonical_product_id"]);
export const categoryId = object({ category_id: integer("category id") }, ["category_id"]);
export const settlementId = object({ settlement_id: integer("settlement id") }, ["settlement_id"]);

export const productsQuery = object({
  ...paging,
  q: text("substring of the title, normalised title or brand (case-insensitive)"),
  parser_name: text("store (parser_name), exact"),
  category_id: integer("primary category id"),
  settlement_id: integer("settlement id"),
  brand: text("brand, case-insensitive"),
  promo: flag("promo flag of a source"),
  is_new: flag("new-product flag of a source"),
  hit: flag("hit flag of a source"),
  adult: flag("adult flag of a source"),
  price_min: { type: "number", description: "lowest effective price (discount, else loyal, else regular price)" },
  price_max: { type: "number", description: "highest effective price" },
  sort: choice(SORTS, "order of the products; another value is answered 400", "observed_at_desc"),
});

export const countQuery = object({
  store: repeated("store (parser_name), case-insensitive; repeat for several"),
  region: repeated("region (normalised region, else region), case-insensitive; repeat for several"),
});

export const commonCountQuery: ObjectSchema = {
  ...object({
    scope: choice(SCOPES, "compare stores or regions; case-insensitive; a missing or other value is answered 400"),
    ...countQuery.properties,
  }),
  // The original declared a default (`all_stores`) that its own check rejects; keep its 400.
  checkedByHandler: ["scope"],
};

const observedSort = choice(OBSERVED_SORTS, "order by observed_at; another value is answered 400", "observed_at_desc");

export const sourcesQuery = object({ ...paging, sort: observedSort });

export const snapshotsQuery = object({
  ...paging,
  parser_name: text("store (parser_name), exact"),
  source_id: text("source id, exact"),
  sort: observedSort,
});

export const dynamicsQuery = object(
  {
    parser_name: needed(text("store (parser_name), exact")),
    source_id: needed(text("source id, exact")),
    field: needed(choice(FIELDS, "snapshot field to chart; another value is answered 400")),
    date_from: instant("start of the grid: ISO 8601 timestamp with a timezone"),
    date_to: instant("end of the grid (inclusive): ISO 8601 timestamp with a timezone"),
    interval: needed(choice(Object.keys(INTERVALS), "bucket length; another value is answered 400")),
  },
  ["parser_name", "source_id", "field", "date_from", "date_to", "interval"],
);

export const categoriesQuery = object({
  ...paging,
  parser_name: text("store (parser_name), exact"),
  depth: integer("depth in the category tree, exact"),
  parent_source_uid: text("source_uid of the parent category, exact"),
  q: text("substring of the title, normalised title, alias or source_uid (case-insensitive)"),
});

export const settlementsQuery = object({
  ...paging,
  country: text("country, exact"),
  region: text("region (not normalised), exact"),
  q: text("substring of the name, alias, region or country (case-insensitive)"),
});

export const cursorsQuery = object({ parser_name: text("store (parser_name), case-insensitive") });
