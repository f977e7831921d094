import type { Meter, MeterPoint, SupplyAddress } from '../schema';
import { list, type RuleContext } from './context';

export interface MeterPointAt {
  mp: MeterPoint;
  attr: string;
  addressIndex: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Meter points that passed the shape check, in payload order, with their attr. */
export function meterPoints(ctx: RuleContext): MeterPointAt[] {
  const out: MeterPointAt[] = [];
  const addresses = list<SupplyAddress>(ctx.account.supply_addresses);
  for (let a = 0; a < addresses.length; a++) {
    const address = addresses[a];
    if (!isObject(address)) continue;
    const mps = list<MeterPoint>(address.meter_points);
    for (let m = 0; m < mps.length; m++) {
      const attr = `supply_addresses.${a}.meter_points.${m}`;
      if (ctx.ok(attr)) out.push({ mp: mps[m], attr, addressIndex: a });
    }
  }
  return out;
}

/**
 * A meter is active unless it is installed after today or was removed: the platform's "an active
 * meter is one that does not have a removed_on date" (an exchanged meter; meterExchanges.ts).
 */
export function isActiveMeter(meter: Meter, today: string): boolean {
  const removed = (meter as { removed_on?: unknown }).removed_on;
  return (meter.installed_on === undefined || meter.installed_on <= today) && (removed === undefined || removed === null);
}
