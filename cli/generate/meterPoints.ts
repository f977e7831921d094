import type { Eac, Aq, HistoricalReading, Meter, MeterPoint, Register, TransferReading } from '../../account/schema';
import { addDays, monthEnd, monthStart, yearOf } from './dates';
import { electricityMeterSerial, gasMeterSerial, mpan, mprn } from './identifiers';
import { pence } from './money';
import type { Rng } from './rng';

/**
 * Electricity and gas meter points that pass every meter point rule (account/rules/meterPoints.ts):
 * one active meter each, one transfer reading per register (gas: per meter) on the last billed
 * day, monthly billed readings before it, an EAC per register TPR, consecutive AQs, agreements
 * from the supply start date on, tariffs and TPRs of DEFAULT_REFERENCE_DATA_ROWS only.
 */

export interface MeterPointPlan {
  today: string;
  /** Last day of the last billed month: transfer readings are taken then. */
  lastBilled: string;
  supplyStart: string;
  readingMonths: number;
  prepay: boolean;
}

/** TPR sets by register count, from the default reference data. */
const TPR_SETS: Record<number, string[][]> = {
  1: [['00001']],
  2: [
    ['00206', '00210'],
    ['00002', '00043'],
  ],
  3: [
    ['00206', '00210', '00221'],
    ['00002', '00043', '00051'],
  ],
};
const SSC_BY_REGISTERS: Record<number, string> = { 1: '0393', 2: '0151', 3: '0131' };
const ELEC_TARIFF_1R = 'E-1R-VAR-22-11-01-M';
const ELEC_TARIFF_2R = 'E-2R-VAR-22-11-01-M';
const GAS_TARIFF = 'G-1R-VAR-22-11-01-M';
const SUPPLIER_MPID = 'DEMO';
const SHIPPER_MPID = 'DSH';

function readingType(rng: Rng, smart: boolean): HistoricalReading['reading_type'] {
  if (smart) return rng.chance(0.9) ? 'SMART' : 'CUSTOMER';
  return rng.pick(['ROUTINE', 'CUSTOMER', 'CUSTOMER', 'ESTIMATED'] as const);
}

/** A tariff change a year after the supply start, when there has been time for one. */
function agreements(rng: Rng, plan: MeterPointPlan, tariff: string): MeterPoint['agreements'] {
  const list = [{ tariff_code: tariff, effective_from: plan.supplyStart }];
  const renewal = monthStart(plan.supplyStart, 12);
  if (renewal <= plan.lastBilled && rng.chance(0.5)) list.push({ tariff_code: tariff, effective_from: renewal });
  return list;
}

function prepayDetails(rng: Rng, plan: MeterPointPlan, gas: boolean): Meter['prepay_details'] {
  return {
    debt_balance: pence(rng.chance(0.3) ? rng.int(500, 30_000) : 0),
    credit_balance: pence(rng.int(0, 4_000)),
    transfer_vend_read_date: addDays(plan.lastBilled, -rng.int(0, 20)),
    ...(gas ? { gas_debt_repayment_options: { weekly_min: pence(rng.int(100, 400)), weekly_max: pence(rng.int(500, 1_500)) } } : {}),
  };
}

function smartRefusal(rng: Rng, plan: MeterPointPlan): Pick<MeterPoint, 'smart_refusal_interest'> {
  if (!rng.chance(0.3)) return {};
  const date = addDays(plan.today, -rng.int(30, 900));
  if (rng.chance(0.7)) {
    return {
      smart_refusal_interest: {
        type: 'NOT_INTERESTED',
        date,
        refusal_reason: rng.pick(['DO_NOT_OWN_HOME', 'PRIVACY_CONCERNS', 'NO_BENEFIT', 'HEALTH_CONCERNS'] as const),
        source: rng.pick(['EMAIL', 'PHONE', 'POST'] as const),
      },
    };
  }
  return { smart_refusal_interest: { type: 'INTERESTED', date, source: rng.pick(['EMAIL', 'ONLINE', 'PHONE'] as const) } };
}

export function electricityMeterPoint(rng: Rng, plan: MeterPointPlan, registerCount?: number): MeterPoint {
  const count = registerCount ?? (rng.chance(0.5) ? 1 : rng.chance(0.7) ? 2 : 3);
  const tprs = rng.pick(TPR_SETS[count]!);
  const smartType = rng.chance(0.4) ? 'SMETS2' : rng.chance(0.25) ? 'SMETS1' : undefined;
  const registers: Register[] = tprs.map((tpr, i) => ({ register_id: String(i + 1), tpr, number_of_digits: 6, is_settlement: true }));
  // Cumulative register values, oldest first: a day register uses more than a night one.
  const monthly = tprs.map((_, i) => (i === 0 ? rng.int(150, 350) : rng.int(60, 200)));
  const start = tprs.map(() => rng.int(1_000, 60_000));
  const valueAt = (r: number, monthsBeforeTransfer: number) =>
    (start[r]! + monthly[r]! * (plan.readingMonths - monthsBeforeTransfer) + rng.int(0, 9) / 10).toFixed(1);

  const history: HistoricalReading[] = [];
  for (let k = 1; k <= plan.readingMonths; k++) {
    const date = monthEnd(plan.lastBilled, -k);
    for (let r = 0; r < registers.length; r++) {
      history.push({ register_id: registers[r]!.register_id, reading_date: date, reading_value: valueAt(r, k), reading_type: readingType(rng, smartType !== undefined), billed: true });
    }
  }
  const transfers: TransferReading[] = registers.map((reg, r) => ({
    register_id: reg.register_id,
    reading_date: plan.lastBilled,
    reading_value: valueAt(r, 0),
    reading_type: smartType ? 'SMART' : 'CUSTOMER',
  }));
  const eacYear = yearOf(plan.today) - (plan.today.slice(5) >= '11-01' ? 0 : 1);
  const eacs: Eac[] = [];
  for (const year of rng.chance(0.5) ? [eacYear - 1, eacYear] : [eacYear]) {
    tprs.forEach((tpr, r) => eacs.push({ effective_from: `${year}-11-01`, tpr, consumption: (monthly[r]! * 12 + rng.int(-90, 90)).toFixed(1), source: 'D0019' }));
  }

  const meter: Meter = {
    meter_serial_number: electricityMeterSerial(rng),
    installed_on: addDays(plan.supplyStart, -rng.int(60, 3_000)),
    ...(smartType ? { smart_type: smartType } : {}),
    registers,
    transfer_readings: transfers,
    reading_history: history,
    is_prepay: plan.prepay,
    ...(plan.prepay ? { prepay_details: prepayDetails(rng, plan, false) } : {}),
  };
  return {
    identifier: mpan(rng),
    supply_type: 'ELECTRICITY',
    agreements: agreements(rng, plan, count === 1 ? ELEC_TARIFF_1R : ELEC_TARIFF_2R),
    mpid: SUPPLIER_MPID,
    supply_start_date: plan.supplyStart,
    profile_class: count === 1 ? 1 : 2,
    ssc: SSC_BY_REGISTERS[count]!,
    meters: [meter],
    et_in_progress: false,
    dr_in_progress: false,
    ...(smartType ? {} : smartRefusal(rng, plan)),
    eac_history: eacs,
  };
}

export function gasMeterPoint(rng: Rng, plan: MeterPointPlan): MeterPoint {
  const digits = 5;
  const monthly = rng.int(20, 120);
  const start = rng.int(1_000, 40_000);
  const smartType = rng.chance(0.4) ? 'SMETS2' : undefined;
  const valueAt = (monthsBeforeTransfer: number) => String(start + monthly * (plan.readingMonths - monthsBeforeTransfer)).padStart(digits, '0');
  const history: HistoricalReading[] = [];
  for (let k = 1; k <= plan.readingMonths; k++) {
    history.push({ register_id: '1', reading_date: monthEnd(plan.lastBilled, -k), reading_value: valueAt(k), reading_type: readingType(rng, smartType !== undefined), billed: true });
  }
  // Gas years run from 1 April: closed years end on 31 March, the current one is open-ended.
  const aqStartYear = yearOf(plan.today) - (plan.today.slice(5) >= '04-01' ? 0 : 1);
  const years = rng.int(1, 3);
  const aqs: Aq[] = [];
  for (let y = aqStartYear - years + 1; y <= aqStartYear; y++) {
    const consumption = String(monthly * 12 * 11 + rng.int(-500, 500));
    aqs.push(y === aqStartYear ? { effective_from: `${y}-04-01`, consumption } : { effective_from: `${y}-04-01`, effective_to: `${y + 1}-03-31`, consumption });
  }
  const meter: Meter = {
    meter_serial_number: gasMeterSerial(rng),
    installed_on: addDays(plan.supplyStart, -rng.int(60, 4_000)),
    gas_number_of_digits: digits,
    ...(smartType ? { smart_type: smartType } : {}),
    transfer_readings: [{ reading_date: plan.lastBilled, reading_value: valueAt(0), reading_type: smartType ? 'SMART' : 'CUSTOMER' }],
    reading_history: history,
    is_prepay: plan.prepay,
    ...(plan.prepay ? { prepay_details: prepayDetails(rng, plan, true) } : {}),
  };
  return {
    identifier: mprn(rng),
    supply_type: 'GAS',
    agreements: agreements(rng, plan, GAS_TARIFF),
    mpid: SUPPLIER_MPID,
    shipper_mpid: SHIPPER_MPID,
    supply_start_date: plan.supplyStart,
    meters: [meter],
    et_in_progress: false,
    dr_in_progress: false,
    ...(smartType ? {} : smartRefusal(rng, plan)),
    aq_history: aqs,
  };
}
