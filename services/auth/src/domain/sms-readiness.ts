/**
 * What the domain needs to know about the SMS provider. An SMS provider chosen with some of its
 * credentials empty: GoTrue starts anyway and fails each SMS when it sets the provider up
 * (internal/api/phone.go answers 500 "Unable to get SMS provider"). Start-up names the empty
 * settings (see smsConfigurationWarning); sending refuses. Also: which channels the provider
 * carries (smsChannel), and asking a provider that makes its own codes (providerApproves).
 */
import type { AuthConfig } from "../config.js";
import type { AuthDeps } from "./context.js";
import { errors, SmsProviderError } from "./errors.js";
import type { Messenger, SmsCodeChecker } from "./messenger.js";

type SmsConfig = Pick<AuthConfig["sms"], "provider" | "missingCredentials">;

/** True when a provider is chosen but cannot send. */
export const smsProviderIncomplete = (sms: SmsConfig): boolean => sms.provider !== undefined && sms.missingCredentials.length > 0;

/** The start-up warning for an incomplete provider, or undefined. */
export function smsConfigurationWarning(sms: SmsConfig): { fields: Record<string, unknown>; message: string } | undefined {
  if (!smsProviderIncomplete(sms)) return undefined;
  return {
    fields: { provider: sms.provider, missing: sms.missingCredentials },
    message: `SMS provider ${sms.provider} is missing settings (${sms.missingCredentials.join(", ")}); sending an SMS will fail`,
  };
}

/** Wraps `messenger` so SMS are refused, with GoTrue's error, while the provider is incomplete. */
export function refusingUnconfiguredSms(sms: SmsConfig, messenger: Messenger): Messenger {
  if (!smsProviderIncomplete(sms)) return messenger;
  return {
    async send(message) {
      if (message.channel === "sms") throw errors.smsProviderUnavailable();
      return messenger.send(message);
    },
  };
}

/** GoTrue's InvalidChannelError (internal/api/errors.go). */
const INVALID_CHANNEL =
  "Invalid channel, supported values are 'sms' or 'whatsapp'. 'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.";

/**
 * The channel a request asked for (`channel`, "sms" when empty), refused with GoTrue's 400 unless
 * the provider can carry it: WhatsApp only through Twilio or Twilio Verify
 * (internal/api/sms_provider/sms_provider.go, IsValidMessageChannel).
 */
export function smsChannel(sms: Pick<SmsConfig, "provider">, requested: string | undefined): "sms" | "whatsapp" {
  const channel = requested || "sms";
  if (channel === "sms") return channel;
  if (channel === "whatsapp" && (sms.provider === "twilio" || sms.provider === "twilio_verify")) return channel;
  throw errors.validation(INVALID_CHANNEL);
}

/**
 * Asks a provider that made the code itself (Twilio Verify) whether it approves it; GoTrue
 * answers a refusal, or a failure to ask, as an invalid code (internal/api/verify.go), so the
 * cause is logged here and the caller answers otp_expired.
 */
export async function providerApproves(deps: Pick<AuthDeps, "smsCodes" | "logger">, phone: string, code: string): Promise<boolean> {
  try {
    await (deps.smsCodes as SmsCodeChecker).check(phone, code);
    return true;
  } catch (error) {
    // Only the provider's refusal (or its silence) means "not approved"; anything else is a bug.
    if (!(error instanceof SmsProviderError)) throw error;
    deps.logger.warn({ ...error.details, err: error.message }, "the SMS provider did not approve the code");
    return false;
  }
}
