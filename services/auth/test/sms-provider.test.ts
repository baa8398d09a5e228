/**
 * An SMS provider chosen with empty credentials (as supabase/auth-js's infra/docker-compose.yml
 * has twilio): the service starts, warns naming the empty settings, and refuses each SMS with
 * GoTrue's answer (internal/api/phone.go: 500 "Unable to get SMS provider").
 */
import { createLogger } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readAuthConfig } from "../src/config.js";
import { createAuth } from "../src/server.js";
import { BASE_ENV, backends, openTestDatabase, phone, type TestDatabase } from "./support/server.js";

const EMPTY_TWILIO = {
  GOTRUE_SMS_PROVIDER: "twilio",
  GOTRUE_SMS_TWILIO_ACCOUNT_SID: "",
  GOTRUE_SMS_TWILIO_AUTH_TOKEN: "",
  GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID: "",
  AUTH_SMS_AUTOCONFIRM: "false",
  AUTH_DB_NAMESPACE: "sms",
};

describe.each(backends)("SMS provider without credentials on %s", (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it("starts, warns naming the missing settings, and refuses to send an SMS", async () => {
    const logger = createLogger({ level: "silent" });
    const warn = vi.spyOn(logger, "warn");
    const sent: string[] = [];
    const auth = await createAuth(readAuthConfig({ ...BASE_ENV, ...EMPTY_TWILIO }), logger, {
      db: database.db,
      messenger: { send: async (message) => void sent.push(message.channel) },
    });
    try {
      expect(warn).toHaveBeenCalledWith(
        {
          provider: "twilio",
          missing: ["AUTH_SMS_TWILIO_ACCOUNT_SID", "AUTH_SMS_TWILIO_AUTH_TOKEN", "AUTH_SMS_TWILIO_MESSAGE_SERVICE_SID"],
        },
        expect.stringContaining("SMS provider twilio is missing settings (AUTH_SMS_TWILIO_ACCOUNT_SID, "),
      );
      const number = phone();
      const response = await auth.app.inject({ method: "POST", url: "/signup", payload: { phone: number, password: "secret-1" } });
      expect(response.statusCode).toBe(500);
      expect(response.headers["x-sb-error-code"]).toBe("unexpected_failure");
      expect(response.json()).toEqual({
        code: 500,
        error_code: "unexpected_failure",
        msg: "Unable to get SMS provider",
        error_id: expect.any(String),
      });
      // Email still goes out.
      const mail = await auth.app.inject({
        method: "POST",
        url: "/signup",
        payload: { email: "sms-test@example.com", password: "secret-1" },
      });
      expect(mail.statusCode).toBe(200);
      expect(sent).toEqual([]);
    } finally {
      await auth.close();
    }
  });
});
