import type { RuleContext } from './context';
import { given, isRecord, records, root, text, type Json } from './loose';
import { isValidMpan } from './supplyPointIds';

/**
 * The Feed-in Tariff of the platform's Account (`fit`; docs/spec/RULES.md, "Platform fields").
 * - Paid by BACS, it names the vendor and the mandate (vendor_name, instruction_reference): the
 *   platform's payment_instruction_details_incomplete, at each one missing.
 * - A meter's mpan is a valid MPAN core (invalid_supply_point_identifier); the platform's document
 *   makes it optional "for export and generation meters", so a SUPPLY meter needs one (required).
 * - A meter belongs to an installation of the payload. The platform lists meters beside
 *   installations (a meter may serve several) and links them by the meter's `extensions`, the
 *   references of the installations' extensions in the Central FiT Register, written
 *   `<installation fit_id>-<extension number>` (its example "FIT00123456-1"). Each extension must
 *   be of that form and name the fit_id of one of `fit.installations`
 *   (fit_meter_installation_not_found): the platform imports only the installations it is given
 *   ("all installations under a single generator must be in the same payload").
 */
export function checkFit(ctx: RuleContext): void {
  const fit = root(ctx).fit;
  if (!isRecord(fit) || !ctx.ok('fit')) return;
  if (text(fit, 'payment_method') === 'BACS') {
    for (const field of ['vendor_name', 'instruction_reference']) {
      if (!given(fit, field)) ctx.errors.add('payment_instruction_details_incomplete', `fit.${field}`, `FiT payments by BACS need ${field}.`);
    }
  }
  const fitIds = installationIds(fit);
  for (const [meter, attr] of records(ctx, fit, 'meters', 'fit.meters')) {
    const mpan = text(meter, 'mpan');
    if (mpan !== undefined && !isValidMpan(mpan)) ctx.errors.add('invalid_supply_point_identifier', `${attr}.mpan`, 'Not a valid MPAN core.');
    if (mpan === undefined && text(meter, 'type') === 'SUPPLY') ctx.errors.add('required', `${attr}.mpan`, 'A FiT supply meter needs its MPAN.');
    const extensions = meter.extensions;
    if (!Array.isArray(extensions)) continue;
    for (let e = 0; e < extensions.length; e++) {
      const extension: unknown = extensions[e];
      if (typeof extension === 'string' && !fitIds.has(installationOf(extension) ?? '')) {
        ctx.errors.add('fit_meter_installation_not_found', `${attr}.extensions.${e}`, `Extension ${extension} names no installation of fit.installations (<fit_id>-<extension number>).`);
      }
    }
  }
}

/** The fit_id of every installation, shape errors or not: an installation with one still exists. */
function installationIds(fit: Json): Set<string> {
  const ids = new Set<string>();
  const installations = fit.installations;
  for (const installation of Array.isArray(installations) ? installations : []) {
    if (isRecord(installation) && typeof installation.fit_id === 'string') ids.add(installation.fit_id);
  }
  return ids;
}

/** The installation's fit_id an extension reference names (`FIT00123456-1` → `FIT00123456`), or undefined when malformed. */
export function installationOf(extension: string): string | undefined {
  const dash = extension.lastIndexOf('-');
  if (dash <= 0 || !/^\d+$/.test(extension.slice(dash + 1))) return undefined;
  return extension.slice(0, dash);
}
