/**
 * Email bodies by URL (MAILER_TEMPLATES_<KIND>), as GoTrue loads them: fetched when first needed,
 * kept for a while, and replaced by the built-in default when the URL cannot be read or does not
 * parse. A failed refresh keeps the last good copy. Failures are logged, never sent to the user.
 */
import type { Logger } from "@platform/core";
import { DEFAULT_TEMPLATES, type MailTemplateKey } from "./default-templates.js";
import { parseTemplate, type Template } from "./go-template.js";

/** How long a fetched template is used before it is fetched again. */
const TEMPLATE_TTL_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 10_000;

interface Entry {
  template: Template;
  fetchedAt: number;
  fromUrl: boolean;
}

export class TemplateSource {
  private readonly defaults = new Map<MailTemplateKey, Template>();
  private readonly cache = new Map<MailTemplateKey, Entry>();
  private readonly loading = new Map<MailTemplateKey, Promise<Template>>();

  constructor(
    private readonly urls: Partial<Record<MailTemplateKey, string | undefined>>,
    private readonly logger: Logger,
  ) {
    for (const [key, source] of Object.entries(DEFAULT_TEMPLATES)) this.defaults.set(key as MailTemplateKey, parseTemplate(source));
  }

  async get(key: MailTemplateKey): Promise<Template> {
    const url = this.urls[key];
    const fallback = this.defaults.get(key) as Template;
    if (!url) return fallback;
    const cached = this.cache.get(key);
    if (cached?.fromUrl && Date.now() - cached.fetchedAt < TEMPLATE_TTL_MS) return cached.template;
    const pending = this.loading.get(key) ?? this.load(key, url, cached, fallback);
    this.loading.set(key, pending);
    try {
      return await pending;
    } finally {
      this.loading.delete(key);
    }
  }

  private async load(key: MailTemplateKey, url: string, cached: Entry | undefined, fallback: Template): Promise<Template> {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      const template = parseTemplate(await response.text());
      this.cache.set(key, { template, fetchedAt: Date.now(), fromUrl: true });
      return template;
    } catch (error) {
      const keeping = cached?.fromUrl ? "the last copy" : "the built-in default";
      this.logger.warn({ template: key, url, err: error }, `email template could not be loaded; using ${keeping}`);
      if (cached?.fromUrl) {
        // Try again after the TTL rather than on every mail.
        cached.fetchedAt = Date.now();
        return cached.template;
      }
      return fallback;
    }
  }
}
