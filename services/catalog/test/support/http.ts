/** Driving the Fastify app in-process and reading its replies. */
import type { FastifyInstance } from "fastify";

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON, checked by the assertions
export type Json = any;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: Json;
  text: string;
}

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "HEAD" | "OPTIONS";

export async function call(app: FastifyInstance, method: Method, url: string): Promise<Reply> {
  const res = await app.inject({ method, url });
  let body: Json;
  try {
    body = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body, text: res.body };
}

/** `/path?a=1&b=2` with proper encoding (`+` in offsets becomes %2B). Arrays repeat the key. */
export function url(path: string, params: Record<string, string | number | boolean | readonly string[]> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const v of value) search.append(key, v);
    else search.append(key, String(value));
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}
