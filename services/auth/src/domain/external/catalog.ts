/** The provider modules by `?provider=` name. */
import type { ProviderName } from "../../config/providers.js";
import { apple } from "./providers/apple.js";
import { azure } from "./providers/azure.js";
import { github } from "./providers/github.js";
import { gitlab } from "./providers/gitlab.js";
import { google } from "./providers/google.js";
import { GROUP_A } from "./providers/group-a.js";
import { GROUP_B } from "./providers/group-b.js";
import { twitter } from "./providers/twitter.js";
import type { ProviderSpec } from "./types.js";

export const CATALOG: Partial<Record<ProviderName, ProviderSpec>> = {
  apple,
  azure,
  github,
  gitlab,
  google,
  twitter,
  ...GROUP_A,
  ...GROUP_B,
};
