/** Provider modules (group a); see catalog.ts. */
import type { ProviderName } from "../../../config/providers.js";
import type { ProviderSpec } from "../types.js";
import { bitbucket } from "./bitbucket.js";
import { discord } from "./discord.js";
import { facebook } from "./facebook.js";
import { figma } from "./figma.js";
import { fly } from "./fly.js";
import { kakao } from "./kakao.js";
import { keycloak } from "./keycloak.js";
import { linkedin } from "./linkedin.js";
import { notion } from "./notion.js";

export const GROUP_A: Partial<Record<ProviderName, ProviderSpec>> = {
  bitbucket,
  discord,
  facebook,
  figma,
  fly,
  kakao,
  keycloak,
  linkedin,
  notion,
};
