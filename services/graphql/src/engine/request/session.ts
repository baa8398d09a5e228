/** Who is asking: the role and the `x-hasura-*` session variables of one request. */
export interface Session {
  role: string;
  /** Session variables with lower-cased names (`x-hasura-user-id`), values as strings. */
  variables: Record<string, string>;
  /** True when the admin secret was given (or none is configured). */
  isAdmin: boolean;
  /** `x-hasura-use-backend-only-permissions: true` sent with the admin secret. */
  useBackendOnly: boolean;
}

export const ADMIN_ROLE = "admin";
