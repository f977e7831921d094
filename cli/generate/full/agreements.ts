import { addDays, monthStart } from '../dates';
import { randomDigits } from '../identifiers';
import { agreedAt } from './industry';
import { fixed, regionOf, type FullContext, type Json } from './context';

/**
 * A full account's supply agreements (issue 35 area 10): the first year on a broker-negotiated
 * fixed contract (closed the day before the renewal: agreements stay consecutive), then the
 * renewal, open-ended. The first carries the contract detail: the business contract it belongs to
 * (declared by business.business_contract_identifiers), the broker (intermediary), a rate override
 * and bespoke rates per register; both carry the platform's characteristics.
 */

/** The business contracts of a full account, one per fuel; business.business_contract_identifiers declares them. */
export function contractIds(external: string): { ELECTRICITY: string; GAS: string } {
  return { ELECTRICITY: `BC-${external}-E`, GAS: `BC-${external}-G` };
}

const RATE_TYPES: Record<number, [string, string | undefined][]> = {
  0: [['STANDARD', undefined]],
  1: [['STANDARD', undefined]],
  2: [
    ['ECO7_DAY', '07:30:00'],
    ['ECO7_NIGHT', '00:30:00'],
  ],
};

interface Target {
  fuel: 'ELECTRICITY' | 'GAS';
  serial: string;
  registers: Json[];
}

function characteristics(ctx: FullContext, t: Target): Json[] {
  const sales = { code: 'sales_channel', value: 'BROKER' };
  if (t.fuel === 'GAS') {
    return [sales, { code: 'gbr-gas.payment-method', value: 'DIRECT_DEBIT' }, { code: 'gbr-gas.meter-point-grid-supply-point-equivalent', value: regionOf(ctx).gsp }];
  }
  return [sales, { code: 'gbr-electricity.payment-method', value: 'DIRECT_DEBIT' }, { code: 'gbr-electricity.meter-rate-profile', value: t.registers.length > 1 ? 'multi_rate' : 'flat_rate' }];
}

/** Pence per kWh (or per day) as pounds with 5 places, e.g. 24.512p → "0.24512". */
const pounds = (penceValue: number) => fixed(penceValue / 100, 5);

export function agreementDetail(ctx: FullContext, base: Json[], t: Target): Json[] {
  const tariff = base[0]!.tariff_code as string;
  const renewal = monthStart(ctx.supplyStart, 12);
  // Pence per kWh and per day, to the thousandth of a penny.
  const unit = ctx.rng.int(18_000, 30_000) / 1000;
  const standing = ctx.rng.int(25_000, 60_000) / 1000;
  const rates = RATE_TYPES[t.fuel === 'GAS' ? 0 : t.registers.length]!;
  const first: Json = {
    tariff_code: tariff,
    effective_from: ctx.supplyStart,
    effective_to: addDays(renewal, -1),
    agreed_at: agreedAt(ctx, ctx.supplyStart),
    rates_agreed_at: agreedAt(ctx, ctx.supplyStart),
    business_contract_identifier: contractIds(ctx.external)[t.fuel],
    characteristics: characteristics(ctx, t),
    intermediary: { portfolio_number: `P-${randomDigits(ctx.rng, 4)}${ctx.rng.pick(['AB', 'KX', 'TR', 'MN'])}${randomDigits(ctx.rng, 2)}`, external_id: `BRK-${randomDigits(ctx.rng, 6)}` },
    rate_overrides: [{ rate_band: t.fuel === 'GAS' ? 'STANDARD' : 'DAY', unit_price: pounds(unit - 0.5) }],
    bespoke_tariff_rates: [
      {
        meter_serial_number: t.serial,
        payment_method: 'DD',
        standing_charge: pounds(standing),
        // The platform's two rates: a gas rate has its unit_rate, an electricity rate its registers' (no unit_rate of its own).
        ...(t.fuel === 'GAS'
          ? { unit_rate: pounds(unit) }
          : {
              registers: rates.map(([rateType, start], i) => ({
                rate_type: rateType,
                ...(t.registers[i] ? { register_id: t.registers[i]!.register_id } : {}),
                ...(start ? { start_time: start } : {}),
                unit_rate: pounds(unit - i * 9),
              })),
            }),
      },
    ],
  };
  const renewed: Json = { tariff_code: tariff, effective_from: renewal, agreed_at: agreedAt(ctx, renewal), characteristics: characteristics(ctx, t) };
  return [first, renewed];
}
