/**
 * Totals of a set of accounts, beside the classes of a reconciliation: counts, and the sums of
 * the ledger balances and of the debts (every `debts[].aged_debt[].debt_amount`), exact (decimal
 * strings added as scaled integers: money does not drift through floating point).
 */
export interface Totals {
  accounts: number;
  customers: number;
  meter_points: number;
  meters: number;
  registers: number;
  /** Sum of `ledgers[].ledger_balance`, as a decimal string. */
  ledger_balances: string;
  /** Sum of `debts[].aged_debt[].debt_amount`, as a decimal string. */
  debts: string;
}

export function emptyTotals(): Totals {
  return { accounts: 0, customers: 0, meter_points: 0, meters: 0, registers: 0, ledger_balances: '0', debts: '0' };
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** a + b, exactly, for decimal strings ("1.10" + "-0.1" = "1.00"); a value that is not a decimal counts 0. */
export function addDecimal(a: string, b: string): string {
  const parse = (v: string) => {
    if (!DECIMAL.test(v)) return { units: 0n, scale: 0 };
    const negative = v.startsWith('-');
    const [int, frac = ''] = (negative ? v.slice(1) : v).split('.');
    return { units: BigInt(int! + frac) * (negative ? -1n : 1n), scale: frac.length };
  };
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  const sum = x.units * 10n ** BigInt(scale - x.scale) + y.units * 10n ** BigInt(scale - y.scale);
  const negative = sum < 0n;
  const digits = (negative ? -sum : sum).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Json[]) : []);
const decimal = (v: unknown): string => (typeof v === 'string' && DECIMAL.test(v) ? v : '0');

/** The totals of one account (create body shape). */
export function accountTotals(account: Json): Totals {
  const t = emptyTotals();
  t.accounts = 1;
  t.customers = list(account.customers).length;
  for (const address of list(account.supply_addresses)) {
    for (const mp of list(address.meter_points)) {
      t.meter_points++;
      for (const meter of list(mp.meters)) {
        t.meters++;
        t.registers += list(meter.registers).length;
      }
    }
  }
  for (const ledger of list(account.ledgers)) t.ledger_balances = addDecimal(t.ledger_balances, decimal(ledger.ledger_balance));
  for (const debt of list(account.debts)) {
    for (const aged of list(debt.aged_debt)) t.debts = addDecimal(t.debts, decimal(aged.debt_amount));
  }
  return t;
}

/** a + b, into a new object. */
export function addTotals(a: Totals, b: Totals): Totals {
  return {
    accounts: a.accounts + b.accounts,
    customers: a.customers + b.customers,
    meter_points: a.meter_points + b.meter_points,
    meters: a.meters + b.meters,
    registers: a.registers + b.registers,
    ledger_balances: addDecimal(a.ledger_balances, b.ledger_balances),
    debts: addDecimal(a.debts, b.debts),
  };
}

export const TOTAL_KEYS = ['accounts', 'customers', 'meter_points', 'meters', 'registers', 'ledger_balances', 'debts'] as const;

/** True when the total `k` is equal in both (decimals compared as numbers: "1.0" equals "1.00"). */
export function totalEqual(k: (typeof TOTAL_KEYS)[number], a: Totals, b: Totals): boolean {
  const x = a[k];
  const y = b[k];
  if (typeof x === 'number' || typeof y === 'number') return x === y;
  const negated = y.startsWith('-') ? y.slice(1) : `-${y}`;
  return /^-?[0.]+$/.test(addDecimal(x, negated));
}

/** True when every total is equal. */
export function totalsEqual(a: Totals, b: Totals): boolean {
  return TOTAL_KEYS.every((k) => totalEqual(k, a, b));
}
