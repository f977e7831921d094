import { addDays, dayOfMonth, daysBetween, monthEnd, monthStart } from '../dates';
import { randomDigits } from '../identifiers';
import { pence } from '../money';
import { fixed, type FullContext, type Json } from './context';
import type { Site } from './meterPoints';

/**
 * The ledger of a full account (issue 35 area 9): monthly electricity supply charges with their
 * line items (standing charge, day and night units: one with each of the platform's `rate_band`,
 * `rate_specification_code` and `time_series_specification_code`, exactly one per item) and tax
 * items (VAT as a proportion, CCL per kWh), monthly Direct Debit collections (one returned unpaid
 * and re-presented), quarterly Smart Export Guarantee credits, a paper bill fee, and gas top-ups to
 * the token meter in use (prepay transactions: `to_prepay_meter_serial_number`, left out of every
 * balance as the platform leaves them out). Up to the last statement's closing date transactions
 * are historical, later ones current; the current period's electricity is charged to date.
 * Money is exact: line items to the thousandth of a penny, each transaction rounded to the penny,
 * balances in pence.
 */

interface Tx {
  tx: Json;
  /** Signed pence: payments and credits raise the balance, charges and repayments lower it; 0 for a prepay top-up. */
  signed: number;
}

/** `E-2R-VAR-22-11-01-M` → `VAR-22-11-01`: the product a tariff code is a regional rate of. */
export function productOf(tariff: string): string {
  return tariff.split('-').slice(2, -1).join('-');
}

/** Integer hundred-thousandths of a pound → a decimal string with 5 places. */
const micro = (n: number) => `${n < 0 ? '-' : ''}${Math.floor(Math.abs(n) / 100_000)}.${String(Math.abs(n) % 100_000).padStart(5, '0')}`;
/** Rounds hundred-thousandths of a pound to pence (half up). */
const toPence = (n: number) => Math.round(n / 1_000);

interface Period {
  from: string;
  to: string;
}

/** The day and night registers' reads, carried from one bill to the next (reset by the exchange). */
interface Reads {
  day: number;
  night: number;
}

function supplyCharge(ctx: FullContext, site: Site, period: Period, rates: { standing: number; day: number; night: number }, reads: Reads, id: string, opts: { current: boolean; noted: boolean; doc?: string }): Tx {
  const days = daysBetween(period.from, period.to) + 1;
  const dayUnits = ctx.rng.int(8, 16) * days;
  const nightUnits = ctx.rng.int(4, 12) * days;
  const from = { ...reads };
  reads.day += dayUnits;
  reads.night += nightUnits;
  const meter = { meter_legacy_id: period.from < site.electricity.exchange ? site.electricity.oldSerial : site.electricity.serial };
  const items = [
    { units: days, price: rates.standing, band: { rate_band: 'STANDING_CHARGE' } },
    { units: dayUnits, price: rates.day, band: { rate_specification_code: 'E7-DAY' }, reads: [from.day, reads.day] },
    { units: nightUnits, price: rates.night, band: { time_series_specification_code: 'E7-NIGHT-HH' }, reads: [from.night, reads.night] },
  ];
  const lineItems = items.map((i) => ({
    start_date: period.from,
    end_date: period.to,
    number_of_units: String(i.units),
    price_per_unit: micro(i.price),
    net_amount: micro(i.units * i.price),
    ...i.band,
    external_rate_identifier: `${productOf(site.electricity.tariff)}-${Object.values(i.band)[0]}`,
    params: i.reads ? meter : {},
    ...(i.reads ? { units: i.reads.map((r) => fixed(r, 1)) } : {}),
  }));
  const net = items.reduce((s, i) => s + i.units * i.price, 0);
  const kwh = dayUnits + nightUnits;
  const ccl = kwh * 775; // £0.00775 per kWh
  const vat = Math.round((net + ccl) * 0.2);
  const amount = toPence(net + ccl + vat);
  return {
    signed: -amount,
    tx: {
      transaction_id: id,
      transaction_date: period.to,
      amount: pence(amount),
      type: 'SUPPLY_CHARGE',
      reason: 'BILL_ISSUED',
      product_code: productOf(site.electricity.tariff),
      supply_point_identifier: site.electricity.mpan,
      ...(opts.noted
        ? { note: opts.current ? 'Charged to date; billed on the next statement.' : `Electricity ${period.from} to ${period.to}.`, display_note: opts.current ? 'Electricity so far this month' : 'Electricity' }
        : {}),
      ...(opts.doc ? { billing_document_identifier: opts.doc } : {}),
      line_items: lineItems,
      tax_items: [
        { tax_type: 'CCL', unit_type: 'CURRENCY_PER_KWH', rate: '0.00775', value_taxed: String(kwh), amount: micro(ccl), params: { exempt_share: '0.00' } },
        { tax_type: 'VAT', unit_type: 'PROPORTION', rate: '0.20', value_taxed: micro(net + ccl), amount: micro(vat), params: {} },
      ],
    },
  };
}

/** A payment for `product` (a top-up is one for the gas product, a collection one for the electricity product). */
function payment(id: string, date: string, amountPence: number, product: string, paymentType: string, reason: string, extra: Json = {}): Tx {
  return { signed: amountPence, tx: { transaction_id: id, transaction_date: date, amount: pence(amountPence), type: 'PAYMENT', reason, payment_type: paymentType, product_code: product, line_items: [], ...extra } };
}

export interface FullLedger {
  historical: Json[];
  current: Json[];
  closing: string;
  /** Σ historical (prepay left out), pence. */
  statementBalance: number;
  /** Σ all (prepay left out), pence: the transfer balance. */
  balance: number;
  /** Monthly bills (newest last): the statements' periods and gross amounts. */
  bills: { from: string; to: string; gross: number }[];
  ddDay: number;
  ddAmount: number;
}

export function fullLedger(ctx: FullContext, site: Site): FullLedger {
  const rng = ctx.rng;
  const rates = { standing: rng.int(45, 65) * 1_000, day: rng.int(24, 32) * 1_000, night: rng.int(12, 18) * 1_000 };
  const doc = `BD-${ctx.external}-${ctx.lastBilled.slice(0, 7).replace('-', '')}`;
  const ddDay = rng.int(1, 28);
  const elec = productOf(site.electricity.tariff);
  const gas = productOf(site.gas.tariff);
  const out: Tx[] = [];
  const bills: FullLedger['bills'] = [];
  let n = 0;
  const id = () => `TX-${ctx.external}-${String(++n).padStart(6, '0')}`;
  // Collections a little under the average bill: arrears build up (the debt, plan and promises answer them).
  const ddAmount = Math.round(((rates.standing * 30 + (rates.day * 12 + rates.night * 8) * 30) / 1_000) * 1.25 * 0.85);
  let month = monthStart(ctx.supplyStart);
  let first = true;
  const reads: Reads = { day: rng.int(10_000, 40_000), night: rng.int(5_000, 20_000) };
  while (month <= ctx.lastBilled) {
    const period = { from: month < ctx.supplyStart ? ctx.supplyStart : month, to: monthEnd(month) };
    // The new meter counts from zero.
    if (period.from <= site.electricity.exchange && period.to > site.electricity.exchange) Object.assign(reads, { day: 0, night: 0 });
    const charge = supplyCharge(ctx, site, period, rates, reads, id(), { current: false, noted: bills.length === 0, doc });
    out.push(charge);
    bills.push({ from: period.from, to: period.to, gross: -charge.signed });
    const collection = dayOfMonth(month, 0, ddDay);
    if (collection >= ctx.supplyStart && collection <= ctx.lastBilled) {
      out.push(payment(id(), collection, ddAmount, elec, first ? 'DD_FIRST_COLLECTION' : 'DD_REGULAR_COLLECTION', 'ACCOUNT_CHARGE_PAYMENT', { reference: `DD-${collection}` }));
      if (!first && bills.length === 4) {
        // Returned unpaid (ARUDD), then collected again a week later.
        out.push({ signed: -ddAmount, tx: { transaction_id: id(), transaction_date: addDays(collection, 3), amount: pence(ddAmount), type: 'REPAYMENT', reason: 'FAILED_PAYMENT', payment_type: 'DD_REGULAR_COLLECTION', product_code: elec, line_items: [] } });
        out.push(payment(id(), addDays(collection, 7), ddAmount, elec, 'DD_RE_PRESENTATION', 'ACCOUNT_CHARGE_PAYMENT'));
      }
      first = false;
    }
    const topUp = dayOfMonth(month, 0, 14);
    if (topUp >= ctx.supplyStart && topUp <= ctx.lastBilled) {
      const date = topUp;
      const serial = date < site.gas.exchange ? site.gas.oldSerial : site.gas.serial;
      out.push({ signed: 0, tx: { ...payment(id(), date, rng.int(10, 30) * 100, gas, 'PAYPOINT_CARD', 'PREPAY_RECORD').tx, to_prepay_meter_serial_number: serial, supply_point_identifier: site.gas.mprn } });
    }
    // Smart Export Guarantee, paid quarterly once the export MPAN is registered.
    if (bills.length % 3 === 0 && monthEnd(month) > site.electricity.exchange) {
      const seg = rng.int(1_500, 6_000);
      out.push({ signed: seg, tx: { transaction_id: id(), transaction_date: monthEnd(month), amount: pence(seg), type: 'CREDIT', reason: 'SEG_PAYMENT', product_code: elec, supply_point_identifier: site.electricity.exportMpan, line_items: [] } });
    }
    if (bills.length === 2) {
      out.push({ signed: -250, tx: { transaction_id: id(), transaction_date: monthEnd(month), amount: pence(250), type: 'CHARGE', reason: 'PAPER_BILL_FEE', product_code: elec, display_note: 'Paper bill', line_items: [{ start_date: period.from, end_date: period.to, number_of_units: '1', price_per_unit: '2.50000', net_amount: '2.50000', rate_band: 'PAPER_BILL', params: {} }] } });
    }
    month = monthStart(month, 1);
  }
  const historical = out.map((t) => t.tx);
  const statementBalance = out.reduce((s, t) => s + t.signed, 0);
  // The open period: the month's collection, a top-up and electricity charged to date.
  const current: Tx[] = [];
  const opening = addDays(ctx.lastBilled, 1);
  if (opening <= ctx.today) {
    current.push(supplyCharge(ctx, site, { from: opening, to: ctx.today }, rates, reads, id(), { current: true, noted: true }));
    const topUp = payment(id(), ctx.today, rng.int(10, 30) * 100, gas, 'PAYZONE', 'PREPAY_RECORD');
    current.push({ signed: 0, tx: { ...topUp.tx, to_prepay_meter_serial_number: site.gas.serial, supply_point_identifier: site.gas.mprn, reference: `PZ-${randomDigits(rng, 10)}` } });
    const collection = dayOfMonth(opening, 0, ddDay);
    if (collection <= ctx.today) current.push(payment(id(), collection, ddAmount, elec, 'DD_REGULAR_COLLECTION', 'ACCOUNT_CHARGE_PAYMENT'));
  }
  const balance = statementBalance + current.reduce((s, t) => s + t.signed, 0);
  return { historical, current: current.map((t) => t.tx), closing: ctx.lastBilled, statementBalance, balance, bills, ddDay, ddAmount };
}
