import type { RuleContext } from './context';
import { given, records, text, type Json, type Rec } from './loose';
import { meterPoints } from './walk';

/**
 * The platform's meter exchange rules (its document, "Validate meter exchange readings provided"
 * and "a last billed to date is provided for an exchanged meter"; docs/spec/RULES.md, "The
 * platform's fields"). An *exchanged* meter is one with a `removed_on` (the platform: "an active
 * meter is one that does not have a removed_on date"; walk.ts isActiveMeter). It was billed up to
 * its removal, so it carries what closes its account of consumption:
 * - transfer readings (no_transfer_reading_on_exchanged_meter);
 * - a reading on the day it was removed, among its transfer readings or its reading history
 *   (no_reading_on_removed_on);
 * - its own last billed to date where its fuel keeps one: on the meter for gas, on each settlement
 *   register for electricity (a register whose `is_settlement` is not false)
 *   (no_last_billed_to_date_on_exchanged_meter).
 * The active meters' transfer reading rules (meterPoints.ts) no longer apply to it.
 */
export function checkMeterExchanges(ctx: RuleContext): void {
  for (const { mp: typed, attr } of meterPoints(ctx)) {
    const mp = typed as unknown as Rec<'supply_addresses.*.meter_points.*'>;
    const fuel = text(mp, 'supply_type');
    for (const [meter, meterAttr] of records(ctx, mp, 'meters', `${attr}.meters`)) {
      const removed = text(meter, 'removed_on');
      if (removed === undefined) continue;
      const transfers = readings(ctx, meter, 'transfer_readings', meterAttr);
      if (transfers.length === 0) {
        ctx.errors.add('no_transfer_reading_on_exchanged_meter', `${meterAttr}.transfer_readings`, `The meter was removed on ${removed}: it needs its transfer readings.`);
      }
      const onRemoval = [...transfers, ...readings(ctx, meter, 'reading_history', meterAttr)].some((r) => text(r, 'reading_date') === removed);
      if (!onRemoval) {
        ctx.errors.add('no_reading_on_removed_on', `${meterAttr}.removed_on`, `The meter was removed on ${removed}: it needs a reading of that day.`);
      }
      if (fuel === 'GAS' && !given(meter, 'last_billed_to_date')) {
        ctx.errors.add('no_last_billed_to_date_on_exchanged_meter', `${meterAttr}.last_billed_to_date`, 'An exchanged gas meter needs its last billed to date.');
      } else if (fuel === 'ELECTRICITY') {
        for (const [register, registerAttr] of records(ctx, meter, 'registers', `${meterAttr}.registers`)) {
          if (register.is_settlement !== false && !given(register, 'last_billed_to_date')) {
            ctx.errors.add('no_last_billed_to_date_on_exchanged_meter', `${registerAttr}.last_billed_to_date`, 'Each settlement register of an exchanged electricity meter needs its last billed to date.');
          }
        }
      }
    }
  }
}

function readings(ctx: RuleContext, meter: Json, key: string, meterAttr: string): Json[] {
  return records(ctx, meter, key, `${meterAttr}.${key}`).map(([r]) => r);
}
