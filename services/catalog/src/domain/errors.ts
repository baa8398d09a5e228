/**
 * The catalog's error catalogue, with the original service's statuses and texts. Every error the
 * service answers is made here; the HTTP layer renders them as `{"detail": ...}` with the status
 * given.
 */
import { AppError } from "@platform/core";

/** One item of a FastAPI/pydantic validation error list. */
export interface ValidationItem {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

const make = (status: number, detail: string, cause?: unknown) => new AppError(status, detail, detail, undefined, { cause });

export const errors = {
  validation: (items: ValidationItem[]) => new AppError(422, "validation_error", "request validation failed", items),
  unsupportedSort: (sort: string) => make(400, `unsupported sort: ${sort}`),
  productNotFound: () => make(404, "product_not_found"),
  sourceNotFound: () => make(404, "source not found"),
  categoryNotFound: () => make(404, "category_not_found"),
  settlementNotFound: () => make(404, "settlement_not_found"),
  datetimeEmpty: () => make(422, "datetime value must be non-empty"),
  datetimeInvalid: () => make(422, "datetime must be valid ISO8601"),
  datetimeNaive: () => make(422, "datetime must include timezone"),
  dateOrder: () => make(422, "date_from must be <= date_to"),
  unsupportedField: (field: string) => make(400, `unsupported field: ${field}`),
  unsupportedInterval: (interval: string) => make(400, `unsupported interval: ${interval}`),
  rangeTooLarge: () => make(400, "requested range is too large"),
  invalidRange: () => make(400, "invalid date range"),
  invalidScope: () => make(400, "scope must be one of: stores, regions"),
  /**
   * The catalog database cannot be reached or read; `reason` is our own phrase, never driver text.
   * The source logs each change of availability (watchAvailability), so answering one is not logged.
   */
  unavailable: (reason: string, cause?: unknown) =>
    new AppError(503, "catalog_unavailable", `catalog_unavailable: ${reason}`, undefined, { cause, reported: true }),
  notFound: () => make(404, "Not Found"),
  methodNotAllowed: () => make(405, "Method Not Allowed"),
};
