import { PLATFORM_ACCOUNT, type PlatformField } from '../../account/platformAccount';
import { platformChildren } from '../../account/platformSchema';
import { TOP_LEVEL_LEDGER_FIELDS } from '../../db/stores/ledgerForm';

/**
 * Values for the platform's fields made from their facts alone (account/platformAccount.json): the
 * first listed value, a valid date, date-time, decimal (within every documented pattern), e-mail
 * address, time, an integer within range, text within its lengths; objects with every field, arrays
 * with one item. Enough for the shape of every path, the store and the read-back; realistic values
 * are the generator's (`data-import generate --profile full`).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function scalarSample(type: string | undefined, f: Partial<PlatformField>): unknown {
  const values = (f.enum ?? []).filter((v) => v !== null);
  const listed = values.filter((v) => v !== '');
  if (listed.length > 0) return listed[0];
  if (values.length > 0) return values[0]; // the document lists only '' (an instalment's payment_type)
  switch (type) {
    case 'integer':
    case 'number':
      return Math.min(Math.max(f.minimum ?? 1, 1), f.maximum ?? 1);
    case 'boolean':
      return true;
    case 'string': {
      const format = f.format?.[0];
      if (format === 'date') return '2024-01-15';
      if (format === 'date-time') return '2024-01-15T10:30:00Z';
      if (format === 'decimal') return '1.25';
      if (format === 'email') return 'jo.bloggs@example.co.uk';
      if (format === 'time') return '07:30:00';
      return 'Sample text'.slice(0, f.maxLength ?? 11).padEnd(f.minLength ?? 0, 'x');
    }
    default:
      return 'sample';
  }
}

/** A value for the platform field at `path`, every sub-field filled. */
export function platformSample(path: string): unknown {
  const f = PLATFORM_ACCOUNT[path]!;
  const type = f.type[0];
  if (type === 'object') {
    const children = platformChildren(path);
    return children.size === 0 ? { note: 'free-form' } : fill({}, path);
  }
  if (type === 'array') {
    if (platformChildren(path).size > 0) return [fill({}, `${path}.*`)];
    return [scalarSample(f.items?.type[0], f.items ?? {})];
  }
  return scalarSample(type, f);
}

/**
 * `target` (the object at platform path `path`) with every platform field it lacks set to a sample,
 * and the objects it has already (the first item of each array) filled the same way.
 */
export function fill(target: Json, path: string): Json {
  for (const [name, p] of platformChildren(path)) {
    const f = PLATFORM_ACCOUNT[p]!;
    const present = target[name];
    if (present === undefined || present === null) target[name] = platformSample(p);
    else if (f.type[0] === 'object' && platformChildren(p).size > 0) fill(present, p);
    else if (f.type[0] === 'array' && Array.isArray(present) && present[0] && typeof present[0] === 'object' && platformChildren(p).size > 0) {
      fill(present[0], `${p}.*`);
    }
  }
  return target;
}

/**
 * A valid spec account (the example) with every field of the platform's Account set: the spec's
 * `ledgers[]` kept, so the platform's top-level ledger form left out (not both: ledger_forms_mixed),
 * and its single `debt` left out beside `debts[]`.
 */
export function everyPlatformField(account: Json): Json {
  const out = fill(account, '');
  for (const k of TOP_LEVEL_LEDGER_FIELDS) delete out[k];
  if (Array.isArray(out.ledgers)) for (const l of out.ledgers) for (const k of ['current_statement_transactions', 'historical_statement_transactions']) {
    for (const t of l[k] ?? []) fill(t, 'current_statement_transactions.*');
  }
  delete out.debt;
  return out;
}
