import type { Meter, MeterPoint } from '../schema';
import { nextDay } from '../dates';
import { list, type RuleContext } from './context';
import { isValidMpan, isValidMprn } from './supplyPointIds';
import { isActiveMeter, meterPoints } from './walk';

/**
 * Meter point rules of docs/spec/RULES.md ("Domain"): identifiers, duplicates, registers, readings,
 * EAC/AQ history, agreements, supply dates, transfers in progress, smart refusal, prepay.
 * Decisions where docs/spec/RULES.md is silent:
 * - an *active* meter is one not installed after today and not removed (no `removed_on`: the
 *   platform's definition; an exchanged meter's own rules are in meterExchanges.ts); an *active*
 *   register is a register of an active meter;
 * - a *billable* meter point is one with at least one agreement (no agreement, nothing billed);
 * - the EAC rule applies to every electricity meter point with active registers;
 * - attrs of "second occurrence" rules point at the later item in payload order.
 */
export function checkMeterPoints(ctx: RuleContext): void {
  const seen = new Map<string, number>(); // identifier → address index of first occurrence
  for (const { mp, attr, addressIndex } of meterPoints(ctx)) {
    checkIdentifier(ctx, mp, attr);
    const firstAddress = seen.get(mp.identifier);
    if (firstAddress === undefined) {
      seen.set(mp.identifier, addressIndex);
    } else if (firstAddress === addressIndex) {
      ctx.errors.add('duplicate_meter_points_provided', `${attr}.identifier`, `Meter point ${mp.identifier} is given twice.`);
    } else {
      ctx.errors.add(
        'duplicate_meter_points_on_different_supply_addresses_provided',
        `${attr}.identifier`,
        `Meter point ${mp.identifier} is given on two supply addresses.`,
      );
    }
    checkTransfersInProgress(ctx, mp, attr);
    checkSmartRefusal(ctx, mp, attr);
    checkAgreements(ctx, mp, attr);
    checkAqHistory(ctx, mp, attr);
    const meters = list(mp.meters);
    const activeTprs = new Set<string>();
    for (let k = 0; k < meters.length; k++) {
      const meter = meters[k];
      const meterAttr = `${attr}.meters.${k}`;
      checkPrepay(ctx, meter, meterAttr);
      checkBilledReadings(ctx, meter, meterAttr);
      if (mp.supply_type === 'ELECTRICITY') checkElectricityMeter(ctx, meter, meterAttr, activeTprs);
      else checkGasMeter(ctx, meter, meterAttr);
    }
    if (mp.supply_type === 'ELECTRICITY') checkEacHistory(ctx, mp, attr, activeTprs);
  }
}

function checkIdentifier(ctx: RuleContext, mp: MeterPoint, attr: string): void {
  const valid = mp.supply_type === 'ELECTRICITY' ? isValidMpan(mp.identifier) : isValidMprn(mp.identifier);
  if (!valid) {
    ctx.errors.add(
      'invalid_supply_point_identifier',
      `${attr}.identifier`,
      mp.supply_type === 'ELECTRICITY' ? 'Not a valid MPAN core.' : 'Not a valid MPRN.',
    );
  }
}

function checkTransfersInProgress(ctx: RuleContext, mp: MeterPoint, attr: string): void {
  if (mp.et_in_progress === true) {
    ctx.errors.add('erroneous_transfer_not_in_progress', `${attr}.et_in_progress`, 'An erroneous transfer is in progress on this meter point.');
  }
  if (mp.dr_in_progress === true) {
    ctx.errors.add('disputed_read_in_progress', `${attr}.dr_in_progress`, 'A disputed read is in progress on this meter point.');
  }
}

function checkSmartRefusal(ctx: RuleContext, mp: MeterPoint, attr: string): void {
  const sri = mp.smart_refusal_interest;
  if (sri && sri.type === 'INTERESTED' && sri.refusal_reason !== undefined) {
    ctx.errors.add(
      'smart_refusal_reason_given_for_interest',
      `${attr}.smart_refusal_interest.refusal_reason`,
      'A refusal reason is given although the customer is interested.',
    );
  }
}

function checkAgreements(ctx: RuleContext, mp: MeterPoint, attr: string): void {
  const agreements = list(mp.agreements);
  if (agreements.length > 0 && mp.supply_start_date !== undefined && mp.supply_start_date > ctx.today) {
    ctx.errors.add('future_supply_start_date', `${attr}.supply_start_date`, 'Supply starts in the future.');
  }
  const order = agreements.map((_, i) => i).sort((a, b) => cmp(agreements[a].effective_from, agreements[b].effective_from));
  for (let n = 0; n < order.length; n++) {
    const i = order[n];
    const agreement = agreements[i];
    const aAttr = `${attr}.agreements.${i}`;
    if (mp.supply_start_date !== undefined && agreement.effective_from < mp.supply_start_date) {
      ctx.errors.add(
        'agreement_start_date_before_supply_start_date',
        `${aAttr}.effective_from`,
        'The agreement starts before the supply start date.',
      );
    }
    if (agreement.effective_to !== undefined && agreement.effective_to < agreement.effective_from) {
      ctx.errors.add('start_date_later_than_end_date', `${aAttr}.effective_to`, 'The end date is before the start date.');
    }
    if (n === 0) continue;
    const prev = agreements[order[n - 1]];
    // Without an end date an agreement runs until the next one starts, so only a shared start
    // date overlaps; with one, the next agreement must start the day after it ends.
    const overlapsOrGaps =
      prev.effective_from === agreement.effective_from ||
      (prev.effective_to !== undefined && nextDay(prev.effective_to) !== agreement.effective_from);
    if (overlapsOrGaps) {
      ctx.errors.add('gaps_or_overlaps_in_agreement_dates', `${aAttr}.effective_from`, 'Agreements must be consecutive, without gaps or overlaps.');
    }
  }
}

function checkAqHistory(ctx: RuleContext, mp: MeterPoint, attr: string): void {
  const aqs = list(mp.aq_history);
  let openEnded = 0;
  for (let i = 0; i < aqs.length; i++) {
    const aq = aqs[i];
    if (aq.effective_to === undefined) {
      openEnded++;
      if (openEnded === 2) {
        ctx.errors.add('multiple_open_ended_aqs_in_meterpoint_aq_history', `${attr}.aq_history.${i}`, 'More than one AQ has no end date.');
      }
    } else if (aq.effective_to < aq.effective_from) {
      ctx.errors.add('start_date_later_than_end_date', `${attr}.aq_history.${i}.effective_to`, 'The end date is before the start date.');
    }
  }
  if (openEnded > 1) return; // the overlap is already reported
  const order = aqs.map((_, i) => i).sort((a, b) => cmp(aqs[a].effective_from, aqs[b].effective_from));
  for (let n = 1; n < order.length; n++) {
    const prev = aqs[order[n - 1]];
    const cur = aqs[order[n]];
    if (prev.effective_to === undefined || nextDay(prev.effective_to) !== cur.effective_from) {
      ctx.errors.add(
        'gaps_or_overlaps_in_aq_history',
        `${attr}.aq_history.${order[n]}.effective_from`,
        'Each AQ must start the day after the previous one ends.',
      );
    }
  }
}

function checkEacHistory(ctx: RuleContext, mp: MeterPoint, attr: string, activeTprs: Set<string>): void {
  const eacs = list(mp.eac_history);
  const seen = new Set<string>();
  const covered = new Set<string>();
  for (let i = 0; i < eacs.length; i++) {
    const key = `${eacs[i].effective_from}|${eacs[i].tpr}`;
    if (seen.has(key)) {
      ctx.errors.add('repeated_eac_for_tpr', `${attr}.eac_history.${i}`, `TPR ${eacs[i].tpr} has two EACs from ${eacs[i].effective_from}.`);
    }
    seen.add(key);
    covered.add(eacs[i].tpr);
  }
  const missing = [...activeTprs].filter((tpr) => !covered.has(tpr));
  if (missing.length > 0) {
    ctx.errors.add('missing_eacs_for_active_register_tpr', `${attr}.eac_history`, `No EAC for active register TPR(s) ${missing.join(', ')}.`);
  }
}

function checkPrepay(ctx: RuleContext, meter: Meter, attr: string): void {
  if (meter.prepay_details !== undefined && meter.is_prepay !== true) {
    ctx.errors.add('prepay_details_on_non_prepay_meter', `${attr}.prepay_details`, 'Prepay details are given for a meter that is not prepay.');
  }
}

function checkBilledReadings(ctx: RuleContext, meter: Meter, attr: string): void {
  const lastBilled = ctx.account.last_billed_to_date;
  if (lastBilled === undefined || !ctx.ok('last_billed_to_date')) return;
  const history = list(meter.reading_history);
  for (let h = 0; h < history.length; h++) {
    if (history[h].billed === true && history[h].reading_date > lastBilled) {
      ctx.errors.add(
        'billed_reading_after_last_billed_to_date',
        `${attr}.reading_history.${h}.reading_date`,
        'A billed reading is dated after last_billed_to_date.',
      );
    }
  }
}

function checkElectricityMeter(ctx: RuleContext, meter: Meter, attr: string, activeTprs: Set<string>): void {
  const registers = list(meter.registers);
  const active = isActiveMeter(meter, ctx.today);
  if (active && registers.length === 0) {
    ctx.errors.add('registers_missing_for_active_electricity_meter', `${attr}.registers`, 'An active electricity meter needs registers.');
  }
  const ids = new Set<string>();
  const tprs = new Set<string>();
  for (let r = 0; r < registers.length; r++) {
    const reg = registers[r];
    const rAttr = `${attr}.registers.${r}`;
    if (ids.has(reg.register_id)) {
      ctx.errors.add('meter_with_duplicate_register_ids', `${rAttr}.register_id`, `Register id ${reg.register_id} is used twice on this meter.`);
    }
    ids.add(reg.register_id);
    if (reg.tpr === undefined) {
      if (active) ctx.errors.add('registers_missing_for_active_electricity_meter', `${rAttr}.tpr`, 'Each register of an active meter needs a TPR.');
      continue;
    }
    if (tprs.has(reg.tpr)) {
      ctx.errors.add('registers_have_duplicate_tprs', `${rAttr}.tpr`, `TPR ${reg.tpr} is used twice on this meter.`);
    }
    tprs.add(reg.tpr);
    if (active) activeTprs.add(reg.tpr);
  }

  const transfers = list(meter.transfer_readings);
  const perRegister = new Map<string, number>();
  for (let t = 0; t < transfers.length; t++) {
    const id = transfers[t].register_id;
    if (id === undefined || !ids.has(id)) {
      ctx.errors.add('reading_register_id_not_recognised', `${attr}.transfer_readings.${t}.register_id`, 'The reading names no register of its meter.');
      continue;
    }
    const count = (perRegister.get(id) ?? 0) + 1;
    perRegister.set(id, count);
    if (count === 2 && active) {
      ctx.errors.add(
        'multiple_transfer_readings_for_register',
        `${attr}.transfer_readings.${t}.register_id`,
        `Register ${id} has more than one transfer reading.`,
      );
    }
  }
  if (active) {
    for (let r = 0; r < registers.length; r++) {
      if (!perRegister.has(registers[r].register_id)) {
        ctx.errors.add('missing_transfer_reading_for_register', `${attr}.registers.${r}`, `Register ${registers[r].register_id} has no transfer reading.`);
      }
    }
  }

  const history = list(meter.reading_history);
  for (let h = 0; h < history.length; h++) {
    const id = history[h].register_id;
    if (id === undefined || !ids.has(id)) {
      ctx.errors.add(
        'historical_reading_register_id_not_recognised',
        `${attr}.reading_history.${h}.register_id`,
        'The historical reading names no register of its meter.',
      );
    }
  }
}

function checkGasMeter(ctx: RuleContext, meter: Meter, attr: string): void {
  if (!isActiveMeter(meter, ctx.today)) return;
  const transfers = list(meter.transfer_readings);
  if (transfers.length === 0) {
    ctx.errors.add('active_gas_meter_without_transfer_reading', `${attr}.transfer_readings`, 'An active gas meter needs a transfer reading.');
  } else if (transfers.length > 1) {
    ctx.errors.add('active_gas_meter_with_multiple_transfer_readings', `${attr}.transfer_readings.1`, 'An active gas meter has more than one transfer reading.');
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
