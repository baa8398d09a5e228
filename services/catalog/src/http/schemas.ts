/** JSON schemas of the routes' parameters: the single source of validation and the OpenAPI document. */
import type { ObjectSchema, ParamSchema } from "./validation.js";

const text = (description?: string): ParamSchema => ({ type: "string", ...(description ? { description } : {}) });
const required = (description: string): ParamSchema => ({ type: "string", minLength: 1, description });
const integer = (description?: string): ParamSchema => ({ type: "integer", ...(description ? { description } : {}) });
const repeated = (description: string): ParamSchema => ({ type: "array", items: { type: "string" }, description });

export const paging = {
  limit: { type: "integer", default: 20, minimum: 1, maximum: 100 },
  offset: { type: "integer", default: 0, minimum: 0 },
} satisfies Record<string, ParamSchema>;

const object = (properties: Record<string, ParamSchema>, requiredNames: string[] = []): ObjectSchema => ({
  type: "object",
  properties,
  ...(requiredNames.length > 0 ? { required: requiredNames } : {}),
});

export const productId = object({ canonical_product_id: text("canonical product id") }, ["canonical_product_id"]);
export const categoryId = object({ category_id: integer() }, ["category_id"]);
export const settlementId = object({ settlement_id: integer() }, ["settlement_id"]);

export const productsQuery = object({
  ...paging,
  q: text("substring of title, normalised title or brand (case-insensitive)"),
  parser_name: text("store, exact"),
  category_id: integer(),
  settlement_id: integer(),
  brand: text("brand, case-insensitive"),
  promo: { type: "boolean" },
  is_new: { type: "boolean" },
  hit: { type: "boolean" },
  adult: { type: "boolean" },
  price_min: { type: "number" },
  price_max: { type: "number" },
  sort: {
    type: "string",
    default: "observed_at_desc",
    description: "observed_at_desc, observed_at_asc, price_asc, price_desc, rating_desc",
  },
});

export const countQuery = object({
  store: repeated("store (parser_name); repeat for several"),
  region: repeated("region (normalised region, or region); repeat for several"),
});

export const commonCountQuery = object({ scope: text("stores or regions"), ...countQuery.properties });

const observedSort: ParamSchema = { type: "string", default: "observed_at_desc", description: "observed_at_desc or observed_at_asc" };

export const sourcesQuery = object({ ...paging, sort: observedSort });

export const snapshotsQuery = object({ ...paging, parser_name: text(), source_id: text(), sort: observedSort });

export const dynamicsQuery = object(
  {
    parser_name: required("store"),
    source_id: required("source id"),
    field: required("price, discount_price, loyal_price or available_count"),
    date_from: required("ISO 8601 timestamp with timezone"),
    date_to: required("ISO 8601 timestamp with timezone"),
    interval: required("1h, 6h, 1d or 7d"),
  },
  ["parser_name", "source_id", "field", "date_from", "date_to", "interval"],
);

export const categoriesQuery = object({ ...paging, parser_name: text(), depth: integer(), parent_source_uid: text(), q: text() });

export const settlementsQuery = object({ ...paging, country: text(), region: text(), q: text() });

export const cursorsQuery = object({ parser_name: text() });
