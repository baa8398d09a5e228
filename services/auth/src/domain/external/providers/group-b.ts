/** Provider modules (group b); see catalog.ts. */
import type { ProviderName } from "../../../config/providers.js";
import type { ProviderSpec } from "../types.js";
import { linkedinOidc } from "./linkedin_oidc.js";
import { slack } from "./slack.js";
import { slackOidc } from "./slack_oidc.js";
import { snapchat } from "./snapchat.js";
import { spotify } from "./spotify.js";
import { twitch } from "./twitch.js";
import { vercelMarketplace } from "./vercel_marketplace.js";
import { workos } from "./workos.js";
import { x } from "./x.js";
import { zoom } from "./zoom.js";

export const GROUP_B: Partial<Record<ProviderName, ProviderSpec>> = {
  linkedin_oidc: linkedinOidc,
  slack,
  slack_oidc: slackOidc,
  snapchat,
  spotify,
  twitch,
  vercel_marketplace: vercelMarketplace,
  workos,
  x,
  zoom,
};
