/** The catalog's routes: each reshapes the validated request and calls one Catalog operation. */
import type { FastifyInstance } from "fastify";
import type { Catalog, Paging, SeriesParams } from "../domain/catalog.js";
import type { OperationDoc } from "./openapi.js";
import * as s from "./schemas.js";
import type { ObjectSchema } from "./validation.js";

type Query = Record<string, unknown>;
type Handler = (params: Query, query: Query) => Promise<unknown>;

const paging = (q: Query): Paging => ({ limit: q.limit as number, offset: q.offset as number });
const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));
const opt = <T>(v: unknown): T | undefined => (v === undefined ? undefined : (v as T));

export interface RouteSpec extends OperationDoc {
  url: string;
  params?: ObjectSchema;
  querystring?: ObjectSchema;
  handle: Handler;
}

export function routeSpecs(catalog: Catalog): RouteSpec[] {
  return [
    {
      url: "/healthz",
      name: "healthz",
      tag: "health",
      description: "Answers ok when the catalog database can be read.",
      response: "Health",
      handle: () => catalog.health(),
    },
    {
      url: "/products",
      name: "list_products",
      tag: "products",
      description: "Canonical products matching every filter given, one page at a time.",
      response: "ProductPage",
      errors: [400],
      querystring: s.productsQuery,
      handle: (_, q) =>
        catalog.listProducts(
          {
            q: str(q.q),
            parserName: str(q.parser_name),
            categoryId: opt(q.category_id),
            settlementId: opt(q.settlement_id),
            brand: str(q.brand),
            promo: opt(q.promo),
            isNew: opt(q.is_new),
            hit: opt(q.hit),
            adult: opt(q.adult),
            priceMin: opt(q.price_min),
            priceMax: opt(q.price_max),
          },
          String(q.sort),
          paging(q),
        ),
    },
    {
      url: "/products/count",
      name: "count_products",
      tag: "products",
      description: "Distinct canonical products sold by any of the stores and in any of the regions given.",
      response: "ProductCount",
      querystring: s.countQuery,
      handle: (_, q) => catalog.countProducts(q.store as string[], q.region as string[]),
    },
    {
      url: "/products/common/count",
      name: "count_common_products",
      tag: "products",
      description:
        "Products sold in every store given (scope=stores) or present in every region given (scope=regions); " +
        "without a list, every store or region of the catalog is required.",
      response: "CommonProductCount",
      errors: [400],
      querystring: s.commonCountQuery,
      handle: (_, q) => catalog.commonCount(str(q.scope), q.store as string[], q.region as string[]),
    },
    {
      url: "/products/:canonical_product_id",
      name: "get_product",
      tag: "products",
      response: "ProductItem",
      errors: [404],
      params: s.productId,
      handle: (p) => catalog.getProduct(String(p.canonical_product_id)),
    },
    {
      url: "/products/:canonical_product_id/sources",
      name: "list_product_sources",
      tag: "products",
      description: "Every store listing of the product.",
      response: "SourcePage",
      errors: [400, 404],
      params: s.productId,
      querystring: s.sourcesQuery,
      handle: (p, q) => catalog.listSources(String(p.canonical_product_id), String(q.sort), paging(q)),
    },
    {
      url: "/products/:canonical_product_id/snapshots",
      name: "list_product_snapshots",
      tag: "products",
      description: "Price and stock history of the product's listings, newest first by default.",
      response: "SnapshotPage",
      errors: [400, 404],
      params: s.productId,
      querystring: s.snapshotsQuery,
      handle: (p, q) =>
        catalog.listSnapshots(
          String(p.canonical_product_id),
          { parserName: str(q.parser_name), sourceId: str(q.source_id) },
          String(q.sort),
          paging(q),
        ),
    },
    {
      url: "/products/:canonical_product_id/dynamics",
      name: "get_product_dynamics",
      tag: "products",
      description:
        "One snapshot field of one listing on a grid of `interval` buckets from date_from to date_to (at most 20000). " +
        "A bucket takes the value of the newest snapshot whose interval touches it, else null.",
      response: "Dynamics",
      errors: [400, 404, 422],
      params: s.productId,
      querystring: s.dynamicsQuery,
      handle: (p, q) =>
        catalog.dynamics({ ...(q as Omit<SeriesParams, "canonical_product_id">), canonical_product_id: String(p.canonical_product_id) }),
    },
    {
      url: "/categories",
      name: "list_categories",
      tag: "categories",
      response: "CategoryPage",
      querystring: s.categoriesQuery,
      handle: (_, q) =>
        catalog.listCategories(
          { parserName: str(q.parser_name), depth: opt(q.depth), parentSourceUid: str(q.parent_source_uid), q: str(q.q) },
          paging(q),
        ),
    },
    {
      url: "/categories/:category_id",
      name: "get_category",
      tag: "categories",
      response: "Category",
      errors: [404],
      params: s.categoryId,
      handle: (p) => catalog.getCategory(p.category_id as number),
    },
    {
      url: "/settlements",
      name: "list_settlements",
      tag: "settlements",
      response: "SettlementPage",
      querystring: s.settlementsQuery,
      handle: (_, q) => catalog.listSettlements({ country: str(q.country), region: str(q.region), q: str(q.q) }, paging(q)),
    },
    {
      url: "/settlements/:settlement_id",
      name: "get_settlement",
      tag: "settlements",
      response: "Settlement",
      errors: [404],
      params: s.settlementId,
      handle: (p) => catalog.getSettlement(p.settlement_id as number),
    },
    {
      url: "/sync/cursors",
      name: "list_sync_cursors",
      tag: "sync",
      description: "Where the converter stands in each store's feed.",
      response: "SyncCursorList",
      querystring: s.cursorsQuery,
      handle: (_, q) => catalog.syncCursors(str(q.parser_name)),
    },
  ];
}

const OTHER_METHODS = ["POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

export function registerRoutes(app: FastifyInstance, specs: RouteSpec[], failures: { methodNotAllowed(): Error; notFound(): Error }): void {
  for (const spec of specs) {
    app.get(
      spec.url,
      {
        schema: {
          ...(spec.params ? { params: spec.params } : {}),
          ...(spec.querystring ? { querystring: spec.querystring } : {}),
        },
        // Read by the OpenAPI document (openapi.ts), not by Fastify.
        config: { openapi: spec satisfies OperationDoc },
      },
      async (request) => {
        const params = request.params as Query;
        // The router lets a path segment be empty (`/products//sources`); Starlette matched none.
        if (Object.values(params).some((v) => v === "")) throw failures.notFound();
        return spec.handle(params, request.query as Query);
      },
    );
    // Only GET is served; other methods on a known path are 405, as FastAPI answers.
    app.route({
      method: [...OTHER_METHODS],
      url: spec.url,
      schema: { hide: true },
      handler: async (_request, reply) => {
        reply.header("allow", "GET");
        throw failures.methodNotAllowed();
      },
    });
  }
}

/** Whether a concrete path matches one of the routes (for the trailing-slash redirect). */
export function pathMatcher(specs: RouteSpec[]): (path: string) => boolean {
  const patterns = specs.map((spec) => new RegExp(`^${spec.url.replace(/:[a-z_]+/g, "[^/]+")}$`));
  return (path) => patterns.some((p) => p.test(path));
}
