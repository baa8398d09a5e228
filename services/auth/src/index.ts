export { type AuthConfig, type AuthDatabaseConfig, readAuthConfig, readAuthDatabaseConfig } from "./config.js";
export { runMigrations } from "./db/migrations.js";
export { authTables } from "./db/tables.js";
export type { Messenger, OutgoingMessage } from "./domain/messenger.js";
export { rotateRefreshToken } from "./domain/refresh.js";
export { AuthService } from "./domain/service.js";
export { newRefreshToken } from "./domain/sessions.js";
export { type AuthInstance, type AuthOptions, createAuth, type RunningAuth, startAuth } from "./server.js";
