/**
 * JSON schemas of the response bodies, the `components.schemas` of the OpenAPI document, written
 * the way pydantic v2 renders models for FastAPI (https://fastapi.tiangolo.com/tutorial/response-model/):
 * a title per model and field, `anyOf [..., null]` for optional values. Every key is always sent,
 * so every key is required, and no other key is sent (`additionalProperties: false`).
 * Shapes follow domain/format.ts and domain/catalog.ts.
 */
import { FIELDS } from "../domain/catalog.js";
import { INTERVALS } from "../domain/dynamics.js";
import { SCOPES } from "./schemas.js";

export type JsonSchema = Record<string, unknown>;

const REF_PREFIX = "#/components/schemas/";
/** Untyped inside this module (the names are being defined); `componentRef` is the checked form. */
const ref = (name: string): JsonSchema => ({ $ref: `${REF_PREFIX}${name}` });

const string = { type: "string" };
const integer = { type: "integer" };
const number = { type: "number" };
const boolean = { type: "boolean" };
const dateTime = { type: "string", format: "date-time" };
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: "null" }] });
const arrayOf = (items: JsonSchema): JsonSchema => ({ type: "array", items });
const oneOfValues = (values: readonly string[]): JsonSchema => ({ type: "string", enum: values });

/** pydantic's field title: `canonical_product_id` -> `Canonical Product Id`. */
export const titleOf = (name: string): string => name.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());

function model(title: string, description: string, fields: Record<string, JsonSchema>): JsonSchema {
  const properties = Object.fromEntries(
    // A `$ref` must stand alone (OpenAPI 3.0 ignores siblings; @fastify/swagger drops them).
    Object.entries(fields).map(([name, schema]) => [name, "$ref" in schema ? schema : { ...schema, title: titleOf(name) }]),
  );
  return { title, description, type: "object", properties, required: Object.keys(fields), additionalProperties: false };
}

const page = (title: string, item: string): JsonSchema =>
  model(title, `One page of ${item} items and its position.`, { items: arrayOf(ref(item)), meta: ref("PageMeta") });

const tokens = nullable(arrayOf(string));
const text = nullable(string);
const optionalNumber = nullable(number);
const optionalInteger = nullable(integer);
const optionalInstant = nullable(dateTime);

const schemas = {
  Health: model("Health", "The catalog database answers.", { status: oneOfValues(["ok"]) }),
  PageMeta: model("PageMeta", "Paging echo and the number of matching items.", { limit: integer, offset: integer, total: integer }),
  ProductItem: model("ProductItem", "A canonical product summarised over its source listings.", {
    canonical_product_id: text,
    title: text,
    brand: text,
    price_from: optionalNumber,
    price_unit: text,
    sources_count: integer,
    observed_at_latest: optionalInstant,
    image_url: text,
    parsers: arrayOf(string),
  }),
  ProductPage: page("ProductPage", "ProductItem"),
  ProductCount: model("ProductCount", "Distinct canonical products among the filtered listings.", {
    products_count: integer,
    stores: tokens,
    regions: tokens,
  }),
  CommonProductCount: model("CommonProductCount", "Products present in every required store or region.", {
    scope: oneOfValues(SCOPES),
    common_products_count: integer,
    required_stores: optionalInteger,
    required_regions: optionalInteger,
    stores: tokens,
    regions: tokens,
  }),
  CategoryRef: model("CategoryRef", "The primary category of a listing.", { id: optionalInteger, source_uid: text, title: text }),
  SettlementRef: model("SettlementRef", "The settlement of a listing.", { id: optionalInteger, name: text, region: text, country: text }),
  SourceItem: model("SourceItem", "One store's listing of a product (a catalog_products row).", {
    id: optionalInteger,
    canonical_product_id: text,
    parser_name: text,
    source_id: text,
    plu: text,
    sku: text,
    title_original: text,
    title_normalized_no_stopwords: text,
    brand: text,
    price: optionalNumber,
    discount_price: optionalNumber,
    loyal_price: optionalNumber,
    price_unit: text,
    rating: optionalNumber,
    reviews_count: optionalInteger,
    promo: nullable(boolean),
    is_new: nullable(boolean),
    hit: nullable(boolean),
    adult: nullable(boolean),
    unit: text,
    available_count: optionalNumber,
    package_quantity: optionalNumber,
    package_unit: text,
    composition_original: text,
    composition_normalized: text,
    observed_at: optionalInstant,
    image_urls: arrayOf(string),
    primary_category: nullable(ref("CategoryRef")),
    settlement: nullable(ref("SettlementRef")),
  }),
  SourcePage: page("SourcePage", "SourceItem"),
  SnapshotItem: model("SnapshotItem", "Prices and stock of one listing over an interval (or at one observation).", {
    id: optionalInteger,
    canonical_product_id: text,
    parser_name: text,
    source_id: text,
    source_run_id: text,
    receiver_product_id: optionalInteger,
    receiver_artifact_id: optionalInteger,
    receiver_sort_order: optionalInteger,
    source_event_uid: text,
    content_fingerprint: text,
    price: optionalNumber,
    discount_price: optionalNumber,
    loyal_price: optionalNumber,
    price_unit: text,
    available_count: optionalNumber,
    valid_from_at: optionalInstant,
    valid_to_at: optionalInstant,
    observed_at: optionalInstant,
    created_at: optionalInstant,
  }),
  SnapshotPage: page("SnapshotPage", "SnapshotItem"),
  DynamicsMeta: model("DynamicsMeta", "The request, with the dates normalised to UTC.", {
    canonical_product_id: string,
    parser_name: string,
    source_id: string,
    field: oneOfValues(FIELDS),
    interval: oneOfValues(Object.keys(INTERVALS)),
    date_from: dateTime,
    date_to: dateTime,
  }),
  Dynamics: model("Dynamics", "One value (or null) per bucket of the grid anchored at date_from.", {
    dates: arrayOf(dateTime),
    values: arrayOf(optionalNumber),
    meta: ref("DynamicsMeta"),
  }),
  Category: model("Category", "A store's category.", {
    id: optionalInteger,
    category_key: text,
    parser_name: text,
    source_uid: text,
    parent_source_uid: text,
    title: text,
    title_normalized: text,
    alias: text,
    depth: optionalInteger,
    sort_order: optionalInteger,
    first_seen_at: optionalInstant,
    last_seen_at: optionalInstant,
    updated_at: optionalInstant,
  }),
  CategoryPage: page("CategoryPage", "Category"),
  Settlement: model("Settlement", "A settlement (town or city) stores serve.", {
    id: optionalInteger,
    geo_key: text,
    country: text,
    country_normalized: text,
    region: text,
    region_normalized: text,
    name: text,
    name_normalized: text,
    settlement_type: text,
    alias: text,
    latitude: optionalNumber,
    longitude: optionalNumber,
    first_seen_at: optionalInstant,
    last_seen_at: optionalInstant,
    updated_at: optionalInstant,
  }),
  SettlementPage: page("SettlementPage", "Settlement"),
  SyncCursor: model("SyncCursor", "How far the converter has read one store's feed.", {
    parser_name: string,
    ingested_at: text,
    product_id: optionalInteger,
    updated_at: optionalInstant,
  }),
  SyncCursorList: model("SyncCursorList", "Every cursor (or the one asked for), by store.", { items: arrayOf(ref("SyncCursor")) }),
  HTTPError: model("HTTPError", "An error the service answers itself; `detail` says what went wrong.", { detail: string }),
  // FastAPI's own definitions (fastapi/openapi/utils.py: validation_error_definition and
  // validation_error_response_definition), including pydantic v2's `input` and `ctx`.
  ValidationError: {
    title: "ValidationError",
    type: "object",
    properties: {
      loc: { title: "Location", type: "array", items: { anyOf: [string, integer] } },
      msg: { title: "Message", type: "string" },
      type: { title: "Error Type", type: "string" },
      input: { title: "Input" },
      ctx: { title: "Context", type: "object" },
    },
    required: ["loc", "msg", "type"],
  },
  HTTPValidationError: {
    title: "HTTPValidationError",
    type: "object",
    properties: { detail: { title: "Detail", type: "array", items: ref("ValidationError") } },
  },
} satisfies Record<string, JsonSchema>;

export type ComponentName = keyof typeof schemas;
export const componentSchemas: Record<ComponentName, JsonSchema> = schemas;
export const componentRef = (name: ComponentName): JsonSchema => ref(name);
