/**
 * A request's query text as a parsed document, cached by its text: applications send the same few
 * operations again and again, so each is parsed once. A text that does not parse is cached as
 * its error.
 */
import { type DocumentNode, GraphQLError, parse } from "graphql";
import { HasuraError, queryParseFailed } from "../errors/index.js";
import { Lru } from "./lru.js";

export class Documents {
  // Budgets in characters of query text (a parsed document takes some bytes per character): an
  // application's operations are a few kilobytes; far larger ones are parsed for each request.
  private readonly cache = new Lru<DocumentNode | HasuraError>(4000, 1_000_000, 32_000);

  /** The document of `query`; throws Hasura's parse error for one that does not parse. */
  parse(query: string): DocumentNode {
    let doc = this.cache.get(query);
    if (!doc) {
      try {
        // No locations: they would keep every token of the text alive with the cached document.
        doc = parse(query, { noLocation: true });
      } catch (error) {
        // graphql-js's parser recurses: a document nested hundreds deep overflows the stack.
        doc =
          error instanceof RangeError
            ? queryParseFailed("the query is nested too deeply to parse")
            : queryParseFailed(error instanceof GraphQLError ? error.message : undefined);
      }
      this.cache.set(query, doc);
    }
    if (doc instanceof HasuraError) throw doc;
    return doc;
  }
}
