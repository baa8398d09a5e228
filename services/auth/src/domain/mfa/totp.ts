/**
 * TOTP keys as GoTrue makes them (pquerna/otp totp.Generate and ValidateCustom, supabase/auth
 * internal/api/mfa.go): a 20-byte secret in unpadded base32, SHA1, 6 digits, a 30 s period and one
 * step of skew either way; the key URI with its query sorted as Go's url.Values encodes it; the QR
 * code of that URI (error correction H) as a raw SVG string. HOTP itself is the otpauth library's.
 */
import { Secret, TOTP } from "otpauth";
import { errors } from "../errors.js";

const PERIOD = 30;
/** What a QR code of error correction H holds (1,273 bytes), with room to spare. */
const MAX_URI_LENGTH = 1_000;
const DIGITS = 6;

export interface TotpKey {
  secret: string;
  uri: string;
  qrCode: string;
}

/** Go's url.URL path escaping: these characters stay as they are in a path. */
const PATH_SAFE = /%(24|26|2B|2C|2F|3A|3B|3D|40)/g;
const escapePath = (text: string) => encodeURIComponent(text).replace(PATH_SAFE, (escaped) => decodeURIComponent(escaped));

export async function newTotpKey(issuer: string, accountName: string): Promise<TotpKey> {
  const secret = new Secret({ size: 20 }).base32.replace(/=+$/, "");
  const query = new URLSearchParams({ algorithm: "SHA1", digits: String(DIGITS), issuer, period: String(PERIOD), secret });
  const uri = `otpauth://totp/${escapePath(`${issuer}:${accountName}`)}?${query.toString()}`;
  if (uri.length > MAX_URI_LENGTH) throw errors.validation("The issuer and account name are too long for a QR code");
  // Loaded on the first enrolment: the library is not needed to start the service.
  const { default: QRCode } = await import("qrcode");
  const qrCode = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "H" });
  return { secret, uri, qrCode };
}

/**
 * The time step of the code when `code` is the factor's code for now or one step before or
 * after; undefined otherwise.
 */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: DIGITS, period: PERIOD });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD) + delta;
}
