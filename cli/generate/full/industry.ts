import { addDays, dateTime, monthStart } from '../dates';
import { randomDigits } from '../identifiers';
import { platformValues } from '../../../account/platformAccount';
import { fixed, regionOf, type FullContext, type Json } from './context';

/**
 * Meter point industry data of a full account's electricity import point (issue 35 area 7):
 * agents and their contracts, configuration periods, capacity, tax exemptions, site visits.
 * Agent ids are market participants of the default reference data (an unknown one is
 * market_participant_not_found).
 */

const MP = 'supply_addresses.*.meter_points.*';

/** An agent contract: references at their platform lengths (10, 4, 4). */
function contract(ctx: FullContext, agent: string, amr: boolean): Json {
  return {
    agent_mpid: agent,
    contract_reference: `C${randomDigits(ctx.rng, 7)}`,
    is_amr: amr,
    is_customer_appointed: ctx.rng.chance(0.2),
    service_level_reference: `SL${ctx.rng.int(1, 9)}`,
    service_reference: `S${ctx.rng.int(100, 999)}`,
  };
}

/** The data aggregator, data collector and meter operator of a smart (AMR-read) import point. */
export function agents(ctx: FullContext): Json {
  return { da_contract: contract(ctx, 'EELC', true), dc_contract: contract(ctx, 'LOND', true), mop_contract: contract(ctx, 'SWEB', false) };
}

/**
 * Consecutive configuration periods (each ends where the next starts; the latest open-ended, all
 * started in the past): non-half-hourly until the smart exchange, half-hourly settled after it.
 */
export function configurationPeriods(ctx: FullContext, exchange: string, profileClass: number, ssc: string): Json[] {
  const { gsp } = regionOf(ctx);
  const llf = `0${ctx.rng.int(10, 99)}`;
  return [
    { effective_from_date: ctx.supplyStart, effective_to_date: exchange, energisation_status: 'E', gsp, llf, measurement_class: 'A', mtc: profileClass === 1 ? 845 : 811, profile_class: profileClass, ssc },
    { effective_from_date: exchange, energisation_status: 'E', gsp, llf, measurement_class: 'G', mtc: 801, profile_class: profileClass, ssc },
  ];
}

/** Agreed capacity (kVA) in consecutive periods, raised once a year after the supply started. */
export function capacityValues(ctx: FullContext): Json[] {
  const raised = monthStart(ctx.supplyStart, 12);
  const base = ctx.rng.int(10, 40);
  return [
    { effective_from_date: ctx.supplyStart, effective_to_date: raised, value: fixed(base, 2) },
    { effective_from_date: raised, value: fixed(base + 5, 2) },
  ];
}

/**
 * Tax exemptions (the share of supply exempt, 0–1): a closed period and the open-ended one after
 * it, never overlapping, each ending strictly after it starts.
 */
export function exemptions(ctx: FullContext, kind: 'ccl' | 'vat'): Json[] {
  const change = monthStart(ctx.supplyStart, ctx.rng.int(3, 11));
  const share = kind === 'vat' ? ctx.rng.int(40, 70) : ctx.rng.int(20, 60);
  return [
    { effective_from: ctx.supplyStart, effective_to: addDays(change, -1), rate: fixed(share / 100, 2) },
    { effective_from: change, rate: fixed((share + 10) / 100, 2) },
  ];
}

/** The smart installation: a first visit without access, then the exchange on `exchange`. */
export function smartSiteVisits(ctx: FullContext, exchange: string, serial: string): Json[] {
  const agents = platformValues(`${MP}.smart_site_visit.*.metering_agent`);
  const agent = ctx.rng.pick(agents.filter((a) => ['SMS', 'LOWRI_BECK', 'EDF_FIELD', 'ECM', 'PROVIDOR'].includes(a)));
  return [
    {
      date: addDays(exchange, -ctx.rng.int(14, 40)),
      metering_agent: agent,
      reference_number: `JOB-${randomDigits(ctx.rng, 8)}`,
      status: 'ABORTED',
      work_category: 'EXCHANGE',
      appointment_notes: 'No access: nobody at the premises at the booked time. Rebooked with the customer.',
      additional_data: { outcome_code: 'NO_ACCESS' },
    },
    {
      date: exchange,
      metering_agent: agent,
      reference_number: `JOB-${randomDigits(ctx.rng, 8)}`,
      status: 'SUCCESSFUL',
      work_category: 'EXCHANGE',
      appointment_notes: `Legacy meter removed; SMETS2 meter ${serial} and in-home display installed and commissioned.`,
      additional_data: { asset_condition_code: 'GOOD', ihd_installed: true },
    },
  ];
}

/** When the agreement's rates were agreed: a few weeks before it starts, during office hours. */
export function agreedAt(ctx: FullContext, effectiveFrom: string): string {
  return dateTime(addDays(effectiveFrom, -ctx.rng.int(7, 40)), ctx.rng.int(9, 17), ctx.rng.int(0, 59));
}
