/**
 * The handlers' way back into the data: GraphQL requests to the engine as admin, as MetaGame's
 * backend makes them (through Hasura, so permissions' presets, event triggers and Hasura's own
 * error messages are what a MetaGame client sees).
 */
import { errors } from "./errors.js";

export interface GraphqlError {
  message: string;
  extensions?: { code?: string; path?: string };
}

/** A GraphQL answer with errors; `message` is the first error's, which handlers pass on as MetaGame's do. */
export class EngineRequestError extends Error {
  constructor(readonly errors: GraphqlError[]) {
    super(errors[0]?.message ?? "the GraphQL engine answered with errors");
    this.name = "EngineRequestError";
  }
}

export interface EngineClient {
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

export function createEngineClient(url: string, adminSecret: string | undefined, fetchImpl: typeof fetch = fetch): EngineClient {
  const headers: Record<string, string> = { "content-type": "application/json", "x-hasura-role": "admin" };
  if (adminSecret) headers["x-hasura-admin-secret"] = adminSecret;
  return {
    async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const response = await fetchImpl(url, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
      const text = await response.text();
      let body: { data?: T; errors?: GraphqlError[] };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        throw errors.engine(`the GraphQL engine answered ${response.status} with a body that is not JSON`);
      }
      if (body.errors && body.errors.length > 0) throw new EngineRequestError(body.errors);
      if (!response.ok || body.data === undefined) throw errors.engine(`the GraphQL engine answered ${response.status} without data`);
      return body.data;
    },
  };
}
