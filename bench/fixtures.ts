import fs from 'node:fs';
import path from 'node:path';
import type { Account } from '../account/schema';

/**
 * Accounts for benchmarks (in-process here; the HTTP benchmark reuses them).
 * Both are valid with DEFAULT_REFERENCE_DATA_ROWS and supplier DEMO_ENERGY, today 2026-11-21.
 */

const EXAMPLE_PATH = process.env.ACCOUNT_EXAMPLE ?? path.resolve(__dirname, '../examples/account-dual-fuel.json');

/** The example account of examples/ (2 customers, 1 electricity and 1 gas meter point). */
export function buildSmallAccount(): Account {
  return JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Account;
}

const MPAN_PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];
function mpan(first12: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * MPAN_PRIMES[i];
  return first12 + String((sum % 11) % 10);
}
function mprn(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (body.length - i);
  return body + String(sum % 11).padStart(2, '0');
}

/** `YYYY-MM-28`, `back` months before October 2026. */
function monthDay(back: number): string {
  return new Date(Date.UTC(2026, 9 - back, 28)).toISOString().slice(0, 10);
}

/**
 * 2 customers, 2 supply addresses with 4 meter points (2 electricity with 2 registers, 2 gas),
 * 3 years of monthly readings per register, 500 ledger transactions.
 */
export function buildLargeAccount(): Account {
  const account = buildSmallAccount();
  const [address] = account.supply_addresses!;
  const second = structuredClone(address);
  second.supply_address1 = '19 Harbour Row';
  second.supply_address2 = '';
  second.meter_points[0].identifier = mpan('230011112233');
  second.meter_points[1].identifier = mprn('73821999');
  account.supply_addresses!.push(second);
  for (const a of account.supply_addresses!) {
    for (const mp of a.meter_points) {
      for (const meter of mp.meters!) {
        if (mp.supply_type === 'ELECTRICITY') {
          meter.reading_history = Array.from({ length: 36 }, (_, m) =>
            (meter.registers ?? []).map((r) => ({
              register_id: r.register_id,
              reading_date: monthDay(m + 1),
              reading_value: `${18000 - m * 200}.0`,
              reading_type: 'ROUTINE' as const,
              billed: true,
            })),
          ).flat();
        } else {
          meter.reading_history = Array.from({ length: 36 }, (_, m) => ({
            reading_date: monthDay(m + 1),
            reading_value: String(4400 - m * 30).padStart(5, '0'),
            reading_type: 'ROUTINE' as const,
            billed: true,
          }));
        }
      }
    }
  }
  const [ledger] = account.ledgers ?? [];
  ledger.current_statement_transactions = [];
  ledger.historical_statement_transactions = Array.from({ length: 500 }, (_, t) => ({
    transaction_id: `TX-L-${t}`,
    transaction_date: monthDay(1 + (t % 36)),
    amount: `${(t % 90) + 10}.00`,
    type: 'PAYMENT' as const,
    reason: 'ACCOUNT_CHARGE_PAYMENT',
    payment_type: 'DD' as const,
  }));
  return account;
}
