import type { MeterPoint } from '../../../account/schema';
import { addDays, daysBetween, monthEnd, yearOf } from '../dates';
import { electricityMeterSerial, gasMeterSerial, mpan, randomDigits, smartDeviceId } from '../identifiers';
import { electricityMeterPoint, gasMeterPoint, type MeterPointPlan } from '../meterPoints';
import { pence } from '../money';
import { fixed, regionOf, type FullContext, type Json } from './context';
import { agents, agreedAt, capacityValues, configurationPeriods, exemptions, smartSiteVisits } from './industry';
import { agreementDetail } from './agreements';

/**
 * The meter points of a full account's site (issues 35 areas 4, 6, 7, 8): a solar-generating
 * small business on smart electricity and metric gas.
 * - Electricity import: the legacy key prepayment meter was exchanged for a SMETS2 credit meter
 *   (`removed_on` of the old = `installed_on` of the new, before the first monthly reading), with
 *   its DCC device id, commissioning date, site visits, agents and industry data.
 * - Electricity export: the same SMETS2 meter (same serial and device) under its export MPAN
 *   (`export_type` IMPORT_EXPORT, the platform's twin of an import point), registered at the
 *   exchange, its agents still to appoint.
 * - Gas, on prepayment: an imperial token meter (SCFH, 4 dials) exchanged for a metric token
 *   meter (SCMH); the customer tops up (ledger payments to the meter's serial).
 * Old meters carry their own last billed date, transfer readings and opening/removal reads; new
 * ones the account's. Fields of the other fuel (docs/spec/RULES.md, field_not_for_supply_type:
 * `units_of_measure` or a meter's own `last_billed_to_date` on electricity, `export_type`,
 * `agents`, `is_deenergised`… on gas) and smart fields on a non-smart meter are never set.
 */

/** A day strictly between the supply start and the first monthly reading: when the meters were exchanged. */
function exchangeDay(ctx: FullContext, offset: number): string {
  const firstReading = monthEnd(ctx.lastBilled, -ctx.readingMonths);
  const span = daysBetween(ctx.supplyStart, firstReading);
  return addDays(ctx.supplyStart, Math.min(span - 1, Math.max(1, Math.floor(span / 2) + offset)));
}

type Reading = { register_id?: string; reading_date: string; reading_value: string; reading_type: string; billed?: boolean; validation_status?: string };

function relabel(history: Reading[], types: readonly string[], ctx: FullContext): void {
  for (const r of history) {
    r.reading_type = ctx.rng.pick(types);
    r.validation_status = ctx.rng.chance(0.97) ? 'VALIDATED' : 'UNVALIDATED';
  }
}

function electricityImport(ctx: FullContext, plan: MeterPointPlan, exchange: string): { mp: Json; serial: string; device: string; oldSerial: string } {
  const { distributor } = regionOf(ctx);
  // Economy 7: the bakery's ovens run on night-rate electricity.
  const mp = electricityMeterPoint(ctx.rng, plan, 2) as unknown as Json;
  mp.identifier = mpan(ctx.rng, distributor);
  const meters = mp.meters as Json[];
  const meter = meters[0]!;
  const registers = meter.registers as Json[];
  const device = smartDeviceId(ctx.rng);
  Object.assign(meter, {
    installed_on: exchange,
    smart_type: 'SMETS2',
    smart_device_id: device,
    smart_commissioned_on: addDays(exchange, ctx.rng.int(0, 2)),
  });
  for (const r of registers) r.last_billed_to_date = ctx.lastBilled;
  relabel(meter.reading_history as Reading[], ['SMART', 'SMART', 'SMART', 'CUSTOMER'], ctx);
  // The legacy key meter: same registers, an opening read at the supply start and its last read at removal.
  const oldSerial = electricityMeterSerial(ctx.rng);
  const reads = registers.map(() => ctx.rng.int(10_000, 80_000));
  const used = daysBetween(ctx.supplyStart, exchange);
  const old: Json = {
    meter_serial_number: oldSerial,
    installed_on: addDays(ctx.supplyStart, -ctx.rng.int(400, 4_000)),
    removed_on: exchange,
    smart_type: 'NONE',
    registers: registers.map((r) => ({ register_id: r.register_id, tpr: r.tpr, number_of_digits: 5, is_settlement: true, last_billed_to_date: exchange })),
    transfer_readings: registers.map((r, i) => ({ register_id: r.register_id, reading_date: exchange, reading_value: fixed(reads[i]! + used * 8, 1), reading_type: 'ROUTINE' })),
    reading_history: registers.flatMap((r, i) => [
      { register_id: r.register_id, reading_date: ctx.supplyStart, reading_value: fixed(reads[i]!, 1), reading_type: 'CUSTOMER', billed: true, validation_status: 'VALIDATED' },
      { register_id: r.register_id, reading_date: exchange, reading_value: fixed(reads[i]! + used * 8, 1), reading_type: 'REGULAR', billed: true, validation_status: 'VALIDATED' },
    ]),
    is_prepay: true,
    prepay_customer_reference_number: randomDigits(ctx.rng, 12),
    prepay_details: { debt_balance: pence(0), credit_balance: pence(ctx.rng.int(0, 2_500)), transfer_vend_read_date: addDays(exchange, -ctx.rng.int(0, 3)) },
  };
  meters.push(old);
  const profileClass = registers.length === 1 ? 1 : 2;
  const ssc = mp.ssc as string;
  Object.assign(mp, {
    agreements: agreementDetail(ctx, mp.agreements as Json[], { fuel: 'ELECTRICITY', serial: meter.meter_serial_number as string, registers }),
    agents: agents(ctx),
    configuration_periods: configurationPeriods(ctx, exchange, profileClass, ssc),
    measurement_class: 'G',
    is_deenergised: false,
    last_billed_to_date: ctx.lastBilled,
    regular_reading_cycle: 'M',
    supply_end_date: null,
    capacity_values: capacityValues(ctx),
    ccl_exemptions: exemptions(ctx, 'ccl'),
    vat_exemptions: exemptions(ctx, 'vat'),
    smart_site_visit: smartSiteVisits(ctx, exchange, meter.meter_serial_number as string),
    smart_refusal_interest: { type: 'INTERESTED', date: addDays(exchange, -ctx.rng.int(60, 120)), source: 'WEBSITE' },
  });
  return { mp, serial: meter.meter_serial_number as string, device, oldSerial };
}

/** The export side of the import point's SMETS2 meter: monthly export reads from the exchange on. */
function electricityExport(ctx: FullContext, exchange: string, serial: string, device: string, commissioned: string): Json {
  const { distributor } = regionOf(ctx);
  const monthly = ctx.rng.int(60, 220);
  const history: Json[] = [];
  for (let k = ctx.readingMonths; k >= 1; k--) {
    const date = monthEnd(ctx.lastBilled, -k);
    history.push({ register_id: '1', reading_date: date, reading_value: fixed(monthly * (ctx.readingMonths - k + 1), 1), reading_type: 'SMART', billed: true, validation_status: 'VALIDATED' });
  }
  const eacYear = yearOf(ctx.today) - (ctx.today.slice(5) >= '11-01' ? 0 : 1);
  return {
    identifier: mpan(ctx.rng, distributor),
    supply_type: 'ELECTRICITY',
    export_type: 'IMPORT_EXPORT',
    agreements: [{ tariff_code: 'E-1R-VAR-22-11-01-M', effective_from: exchange, agreed_at: agreedAt(ctx, exchange) }],
    mpid: 'DEMO',
    supply_start_date: exchange,
    profile_class: 8,
    ssc: '0393',
    meters: [
      {
        meter_serial_number: serial,
        installed_on: exchange,
        smart_type: 'SMETS2',
        smart_device_id: device,
        smart_commissioned_on: commissioned,
        registers: [{ register_id: '1', tpr: '00001', number_of_digits: 6, is_settlement: true, last_billed_to_date: ctx.lastBilled }],
        transfer_readings: [{ register_id: '1', reading_date: ctx.lastBilled, reading_value: fixed(monthly * (ctx.readingMonths + 1), 1), reading_type: 'SMART' }],
        reading_history: history,
        is_prepay: false,
      },
    ],
    et_in_progress: false,
    dr_in_progress: false,
    dc_to_appoint: 'LOND',
    mop_to_appoint: 'SWEB',
    is_deenergised: false,
    last_billed_to_date: ctx.lastBilled,
    eac_history: [{ effective_from: `${eacYear}-11-01`, tpr: '00001', consumption: fixed(monthly * 12, 1), source: 'D0019' }],
  };
}

function gasPrepayDetails(ctx: FullContext, vendBefore: string): Json {
  return {
    debt_balance: pence(ctx.rng.int(0, 6_000)),
    credit_balance: pence(ctx.rng.int(0, 1_500)),
    transfer_vend_read_date: addDays(vendBefore, -ctx.rng.int(0, 3)),
    gas_debt_repayment_options: { weekly_min: pence(ctx.rng.int(100, 300)), weekly_max: pence(ctx.rng.int(500, 1_200)) },
  };
}

/** The AQs with their source; at least two gas years, so a closed one (with its end) comes before the open one. */
function aqHistory(ctx: FullContext, aqs: Json[]): Json[] {
  const first = aqs[0]!;
  const year = Number((first.effective_from as string).slice(0, 4));
  const earlier = aqs.length > 1 ? [] : [{ effective_from: `${year - 1}-04-01`, effective_to: `${year}-03-31`, consumption: first.consumption }];
  return [...earlier, ...aqs].map((aq) => ({ ...aq, source: ctx.rng.pick(['CDSP', 'SHIPPER']) }));
}

/** Gas on prepayment: an imperial token meter exchanged for a metric one; top-ups are ledger transactions to their serials. */
function gas(ctx: FullContext, plan: MeterPointPlan, exchange: string): { mp: Json; serial: string; oldSerial: string } {
  const mp = gasMeterPoint(ctx.rng, plan) as unknown as Json;
  const meters = mp.meters as Json[];
  const meter = meters[0]!;
  // The base meter may be smart; this site's gas meter is a token meter without smart fields.
  delete meter.smart_type;
  Object.assign(meter, { installed_on: exchange, units_of_measure: 'SCMH', last_billed_to_date: ctx.lastBilled, is_prepay: true, prepay_details: gasPrepayDetails(ctx, ctx.lastBilled) });
  relabel(meter.reading_history as Reading[], ['ROUTINE', 'CUSTOMER', 'ESTIMATE', 'REGULAR'], ctx);
  for (const t of meter.transfer_readings as Reading[]) t.reading_type = 'CUSTOMER';
  const open = ctx.rng.int(1_000, 8_000);
  const removal = String(open + Math.round(daysBetween(ctx.supplyStart, exchange) * 1.5)).padStart(4, '0');
  const oldSerial = gasMeterSerial(ctx.rng);
  meters.push({
    meter_serial_number: oldSerial,
    installed_on: addDays(ctx.supplyStart, -ctx.rng.int(2_000, 8_000)),
    removed_on: exchange,
    last_billed_to_date: exchange,
    gas_number_of_digits: 4,
    units_of_measure: 'SCFH',
    smart_type: 'NONE',
    transfer_readings: [{ reading_date: exchange, reading_value: removal, reading_type: 'ROUTINE' }],
    reading_history: [
      { reading_date: ctx.supplyStart, reading_value: String(open).padStart(4, '0'), reading_type: 'CUSTOMER', billed: true, validation_status: 'VALIDATED' },
      { reading_date: exchange, reading_value: removal, reading_type: 'ROUTINE', billed: true, validation_status: 'VALIDATED' },
    ],
    is_prepay: true,
    prepay_details: gasPrepayDetails(ctx, exchange),
  });
  const reasons = ['HOUSE_MOVE_IMMINENT', 'WORRIED_ABOUT_INSTALLATION', 'CANNOT_ATTEND_APPOINTMENT', 'MORE_INFORMATION_REQUIRED'] as const;
  Object.assign(mp, {
    agreements: agreementDetail(ctx, mp.agreements as Json[], { fuel: 'GAS', serial: meter.meter_serial_number as string, registers: [] }),
    mam_to_appoint: 'DSH',
    ldz: regionOf(ctx).ldz,
    regular_reading_cycle: 'M',
    last_billed_to_date: ctx.lastBilled,
    supply_end_date: null,
    smart_refusal_interest: { type: 'NOT_AT_THE_MOMENT', date: addDays(ctx.today, -ctx.rng.int(30, 300)), refusal_reason: ctx.rng.pick(reasons), source: 'EMAIL' },
    aq_history: aqHistory(ctx, mp.aq_history as Json[]),
  });
  return { mp, serial: meter.meter_serial_number as string, oldSerial };
}

/** What the ledger of a full account needs to know of its site. */
export interface Site {
  meterPoints: MeterPoint[];
  electricity: { mpan: string; exportMpan: string; tariff: string; serial: string; oldSerial: string; exchange: string; tprs: string[] };
  gas: { mprn: string; serial: string; oldSerial: string; exchange: string; tariff: string };
}

/** The three meter points of the site, import first (violations and rules read `meter_points[0]`). */
export function fullSite(ctx: FullContext, plan: MeterPointPlan): Site {
  const exchange = exchangeDay(ctx, ctx.rng.int(-5, 5));
  const imp = electricityImport(ctx, plan, exchange);
  const meter = (imp.mp.meters as Json[])[0]!;
  const exp = electricityExport(ctx, exchange, imp.serial, imp.device, meter.smart_commissioned_on as string);
  const gasExchange = exchangeDay(ctx, ctx.rng.int(-10, 10));
  const g = gas(ctx, plan, gasExchange);
  const tariffOf = (mp: Json) => (mp.agreements as Json[])[0]!.tariff_code as string;
  return {
    meterPoints: [imp.mp, exp, g.mp] as unknown as MeterPoint[],
    electricity: {
      mpan: imp.mp.identifier as string,
      exportMpan: exp.identifier as string,
      tariff: tariffOf(imp.mp),
      serial: imp.serial,
      oldSerial: imp.oldSerial,
      exchange,
      tprs: (meter.registers as Json[]).map((r) => r.tpr as string),
    },
    gas: { mprn: g.mp.identifier as string, serial: g.serial, oldSerial: g.oldSerial, exchange: gasExchange, tariff: tariffOf(g.mp) },
  };
}
