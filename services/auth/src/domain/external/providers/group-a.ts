/** Provider modules (group a); see catalog.ts. */
import type { ProviderName } from "../../../config/providers.js";
import type { ProviderSpec } from "../types.js";

export const GROUP_A: Partial<Record<ProviderName, ProviderSpec>> = {};
