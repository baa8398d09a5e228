/** Provider modules (group b); see catalog.ts. */
import type { ProviderName } from "../../../config/providers.js";
import type { ProviderSpec } from "../types.js";

export const GROUP_B: Partial<Record<ProviderName, ProviderSpec>> = {};
