/** GET /settings (the keys of supabase/auth internal/api/settings.go) and GET /health. */

import { SETTINGS_PROVIDERS } from "../config/providers.js";
import type { AuthConfig } from "../config.js";

export const VERSION = "v0.1.0";

export function settings(config: AuthConfig) {
  const external: Record<string, boolean> = { anonymous_users: config.external.anonymousUsers };
  for (const provider of SETTINGS_PROVIDERS) external[provider] = config.external.providers[provider].enabled;
  external.email = config.external.email;
  external.phone = config.external.phone;
  return {
    external,
    disable_signup: config.disableSignup,
    mailer_autoconfirm: config.mailer.autoconfirm,
    phone_autoconfirm: config.sms.autoconfirm,
    sms_provider: config.sms.provider ?? "",
    saml_enabled: false,
    saml_private_key_next_configured: false,
    passkeys_enabled: false,
  };
}

export function health() {
  return { version: VERSION, name: "GoTrue", description: "GoTrue is a user registration and authentication API" };
}
