import type { RuleContext } from './context';
import { sumEquals } from './decimal';
import { each, given, isRecord, plainRoot, records, root, text, type FieldOf, type Rec } from './loose';

/**
 * Three of the platform's EnergyAccount validators, with its codes (docs/spec/RULES.md):
 * - a portfolio lead has no supply address (`portfolio_lead_has_a_supply_address`, at
 *   `supply_addresses`): the lead holds the portfolio, its members the supplies;
 * - current statement transactions carry no `billing_document_identifier`, only historical ones
 *   do (`billing_document_identifier_not_allowed_for_current_statement_transactions`), in either
 *   ledger form;
 * - the top-level ledger form: `last_statement_balance` plus the current statement transactions
 *   (payments and credits add, charges, supply charges and repayments subtract; prepay top-ups,
 *   with `to_prepay_meter_serial_number`, left out as the platform leaves them out) equals
 *   `transfer_balance` (`balance_mismatch_on_transfer_balance`, at `transfer_balance`). Checked when
 *   the transfer balance and the last statement balance are both sent and every amount passed the
 *   shape check (a partial sum would mislead).
 * And what the platform's two bespoke tariff rates require beyond what both do (the schema holds
 * `standing_charge`, required by both): an electricity rate its `registers` (its unit rates are
 * there), a gas rate its `unit_rate` (`required` at the field, as the schema would answer).
 */
export function checkPlatformRefusals(ctx: RuleContext): void {
  const a = root(ctx);
  if (a.is_portfolio_lead === true && Array.isArray(a.supply_addresses) && a.supply_addresses.length > 0) {
    ctx.errors.add('portfolio_lead_has_a_supply_address', 'supply_addresses', 'A portfolio lead has no supply address: its members hold the supplies.');
  }
  // ledgers[] is the spec's form, not a field of the platform's Account.
  const spec = plainRoot(ctx).ledgers;
  const ledgers: unknown[] = Array.isArray(spec) ? spec : [];
  const forms: [unknown, string][] = [[a.current_statement_transactions, 'current_statement_transactions']];
  ledgers.forEach((l, i) => forms.push([isRecord(l) ? l.current_statement_transactions : undefined, `ledgers.${i}.current_statement_transactions`]));
  for (const [txs, attr] of forms) {
    if (!Array.isArray(txs)) continue;
    txs.forEach((tx, t) => {
      if (isRecord(tx) && given(tx, 'billing_document_identifier')) {
        ctx.errors.add(
          'billing_document_identifier_not_allowed_for_current_statement_transactions',
          `${attr}.${t}.billing_document_identifier`,
          'billing_document_identifier is for historical statement transactions only.',
        );
      }
    });
  }
  checkTransferBalance(ctx, a);
  checkBespokeRates(ctx);
}

const ADDS = new Set(['PAYMENT', 'CREDIT']);

function checkTransferBalance(ctx: RuleContext, a: Rec<''>): void {
  const transfer = text(a, 'transfer_balance');
  const statement = text(a, 'last_statement_balance');
  if (transfer === undefined || statement === undefined) return;
  if (!ctx.ok('transfer_balance') || !ctx.ok('last_statement_balance') || !ctx.ok('current_statement_transactions')) return;
  const terms = [statement];
  const txs = Array.isArray(a.current_statement_transactions) ? a.current_statement_transactions : [];
  for (const tx of txs) {
    if (!isRecord(tx) || given(tx, 'to_prepay_meter_serial_number')) continue;
    const amount = text(tx, 'amount');
    if (amount === undefined) return;
    terms.push(ADDS.has(String(tx.type)) ? amount : negate(amount));
  }
  if (!sumEquals(terms, transfer)) {
    ctx.errors.add('balance_mismatch_on_transfer_balance', 'transfer_balance', 'last_statement_balance and the current statement transactions do not add up to transfer_balance.');
  }
}

const negate = (d: string) => (d.startsWith('-') ? d.slice(1) : `-${d}`);

/** The field each supply type's bespoke rate requires that the other's does not have. */
const RATE_REQUIRES: Readonly<Record<string, FieldOf<`${typeof MP}.agreements.*.bespoke_tariff_rates.*`>>> = { ELECTRICITY: 'registers', GAS: 'unit_rate' };
const MP = 'supply_addresses.*.meter_points.*';

function checkBespokeRates(ctx: RuleContext): void {
  for (const [mp, attr] of each(ctx, MP)) {
    const field = RATE_REQUIRES[String(mp.supply_type)];
    if (field === undefined) continue;
    for (const [agreement, aAttr] of records(ctx, mp, 'agreements', `${attr}.agreements`)) {
      for (const [rate, rAttr] of records(ctx, agreement, 'bespoke_tariff_rates', `${aAttr}.bespoke_tariff_rates`)) {
        if (!given(rate, field)) ctx.errors.add('required', `${rAttr}.${field}`, `A ${String(mp.supply_type).toLowerCase()} bespoke tariff rate requires ${field}.`);
      }
    }
  }
}
