/** GET /settings and GET /health. */
import { type AuthConfig, PROVIDERS } from "../config.js";

export const VERSION = "v0.1.0";

export function settings(config: AuthConfig) {
  const external: Record<string, boolean> = { anonymous_users: config.external.anonymousUsers };
  for (const provider of PROVIDERS) external[provider] = config.external.providers[provider].enabled;
  external.email = config.external.email;
  external.phone = config.external.phone;
  return {
    external,
    disable_signup: config.disableSignup,
    autoconfirm: config.mailer.autoconfirm,
    mailer_autoconfirm: config.mailer.autoconfirm,
    phone_autoconfirm: config.sms.autoconfirm,
    sms_provider: config.sms.provider ?? "",
    saml_enabled: false,
    passkeys_enabled: false,
  };
}

export function health() {
  return { version: VERSION, name: "GoTrue", description: "GoTrue is a user registration and authentication API" };
}
