import path from 'node:path';
import type { Config } from '../lib/config';
import { createMailTransport } from './transport';
import { TemplateRenderer } from './templates';

/** The relay, its timeout and the templates of the configuration: what a worker (or the CLI) sends with. */
export function createMailer(c: Config['email']) {
  return { transport: createMailTransport(c), renderer: new TemplateRenderer(path.resolve(c.templatesDir)), smtpTimeoutMs: c.smtpTimeoutMs };
}

export type Mailer = ReturnType<typeof createMailer>;
