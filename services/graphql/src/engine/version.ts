/** The Hasura GraphQL Engine version this engine answers as (`/v1/version`, and the User-Agent of its outgoing calls). */
export const VERSION = "v2.48.0";
