/** What every domain operation gets: the database, the configuration and the services built from it. */
import type { Database, Logger } from "@platform/core";
import type { AuthConfig } from "../config.js";
import type { AuthTables } from "../db/tables.js";
import type { KeyRing } from "./keys.js";
import type { Messenger, SmsCodeChecker } from "./messenger.js";
import type { PasswordHasher } from "./passwords.js";
import type { UniformTiming } from "./uniform-timing.js";

export interface AuthDeps {
  db: Database;
  tables: AuthTables;
  config: AuthConfig;
  keys: KeyRing;
  passwords: PasswordHasher;
  messenger: Messenger;
  /** Holds back answers that must not reveal whether an address has an account. */
  timing: UniformTiming;
  /** Set when the SMS provider checks codes itself (Twilio Verify). */
  smsCodes?: SmsCodeChecker | undefined;
  logger: Logger;
}

/** Facts about the request a domain operation may use (sessions record them, audit entries too). */
export interface RequestMeta {
  /** The client address (see the http layer for which header, if any, is trusted). */
  ip: string | undefined;
  userAgent: string | undefined;
  /** The X-JWT-AUD header, when sent. */
  audience: string | undefined;
}
