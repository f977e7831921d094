import fs from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';

/** The templates this service sends; one folder each under emails/templates/. */
export const TEMPLATE_CODES = ['migration_welcome'] as const;
export type TemplateCode = (typeof TEMPLATE_CODES)[number];

const PARTS = ['subject', 'html', 'text'] as const;
type Part = (typeof PARTS)[number];

/** What a template sees (docs/customer-emails.md lists it for override authors). */
export interface TemplateContext {
  supplier: { code: string; name: string; replyTo: string | null };
  customer: { title: string; givenName: string; familyName: string; fullName: string; salutation: string };
  account: { number: string; externalNumber: string };
  supplyAddresses: { lines: string[]; postcode: string; meterPoints: { supplyType: string; identifier: string; tariff: string }[] }[];
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

// The service's own templates: next to this file in the sources, copied beside dist/ never, so
// the compiled code finds them in the source tree too.
function defaultTemplatesDir(): string {
  const candidates = [path.join(__dirname, 'templates'), path.join(__dirname, '..', '..', 'emails', 'templates')];
  const found = candidates.find((d) => fs.existsSync(d));
  if (!found) throw new Error(`the e-mail templates folder is missing (looked in ${candidates.join(', ')})`);
  return found;
}

/**
 * Renders templates with Handlebars (HTML-escaped in html, raw in subject and text). A supplier's
 * override folder `<overridesDir>/<SUPPLIER>/<template>/` may replace any of subject.hbs,
 * html.hbs and text.hbs; the parts it does not have come from the service's own template.
 * Each template is compiled once per process (restart the worker after changing an override).
 */
export class TemplateRenderer {
  private readonly hb = Handlebars.create();
  private readonly compiled = new Map<string, Record<Part, HandlebarsTemplateDelegate>>();
  private readonly defaultsDir = defaultTemplatesDir();

  constructor(private readonly overridesDir: string) {
    this.hb.registerHelper('join', (items: unknown, sep: unknown) => (Array.isArray(items) ? items.filter((x) => x !== '' && x != null).join(typeof sep === 'string' ? sep : ', ') : ''));
  }

  /** Which file each part of a supplier's template comes from. */
  sources(supplier: string, template: TemplateCode): Record<Part, string> {
    if (!(TEMPLATE_CODES as readonly string[]).includes(template)) throw new Error(`unknown e-mail template ${template}`);
    const out = {} as Record<Part, string>;
    for (const part of PARTS) {
      const override = path.resolve(this.overridesDir, supplier, template, `${part}.hbs`);
      out[part] = fs.existsSync(override) ? override : path.join(this.defaultsDir, template, `${part}.hbs`);
    }
    return out;
  }

  render(supplier: string, template: TemplateCode, context: TemplateContext): RenderedMail {
    const key = `${supplier}\u0000${template}`;
    let parts = this.compiled.get(key);
    if (!parts) {
      const files = this.sources(supplier, template);
      const compile = (part: Part) => this.hb.compile(fs.readFileSync(files[part], 'utf8'), { noEscape: part !== 'html', strict: false });
      parts = { subject: compile('subject'), html: compile('html'), text: compile('text') };
      this.compiled.set(key, parts);
    }
    return {
      // A subject is one line whatever the template's trailing newline.
      subject: parts.subject(context).replace(/\s+/g, ' ').trim(),
      html: parts.html(context),
      // Blank lines left by block helpers collapse to one.
      text: parts.text(context).replace(/\n{3,}/g, '\n\n'),
    };
  }
}
