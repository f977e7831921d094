/**
 * The building blocks of the Account's schemas (account/schema.ts and its sections beside this
 * file): one object with its `$id` and the platform's other fields, capped arrays, the kinds of
 * text, dates and decimals, and the array caps.
 */
import { Type, type TOptional, type TSchema, type TString, type TProperties } from '@sinclair/typebox';
import { platformRest } from '../platformSchema';

const ID_PREFIX = 'https://schemas.data-import/account/';

/**
 * An object of the Account: its hand-written fields, then the platform's other fields of the object
 * at `platformPath` in account/platformAccount.json (account/platformSchema.ts builds them from
 * the document's facts; they are not in the static type, rules read them loosely).
 */
export function obj<T extends TProperties>(name: string, properties: T, platformPath?: string) {
  const rest = platformPath === undefined ? {} : platformRest(platformPath, Object.keys(properties));
  return Type.Object({ ...rest, ...properties } as T, { $id: `${ID_PREFIX}${name}.json`, additionalProperties: false });
}

export const arr = <T extends TSchema>(items: T, maxItems: number) => Type.Array(items, { maxItems });

/** Descriptive text: may be an empty string (spec general rule 6). */
export const Text = (maxLength = 255) => Type.String({ maxLength });
/** Identifying text: must not be blank. */
export const Code = (maxLength = 255) => Type.String({ minLength: 1, maxLength });
export const DateStr = () => Type.String({ format: 'date' });
export const DateTimeStr = () => Type.String({ format: 'date-time' });
/** A day, or an instant (the platform's PSR `effective_from` is a date-time, the spec's a date): kept as sent. */
export const DayOrInstant = () => Type.String({ format: 'date-or-date-time', maxLength: 64 });
export const Decimal = () => Type.String({ format: 'decimal', maxLength: 40 });
// A plain `enum` keyword (not anyOf of literals): one ajv error per bad value, and plain OpenAPI.
export const Enum = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
export const Opt = Type.Optional;

/** Optional descriptive address lines `<prefix>N`, in the order given (the platform's 512 characters). */
export function addressLines<P extends string, N extends number>(prefix: P, numbers: readonly N[]) {
  return Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, Opt(Text(512))])) as {
    [K in `${P}${N}`]: TOptional<TString>;
  };
}

/** Array caps; exported so tests and docs name the same numbers. */
export const LIMITS = {
  customers: 100,
  psr: 100,
  supplyAddresses: 1000,
  propertyAdministrators: 20,
  meterPoints: 100,
  agreements: 1000,
  meters: 50,
  registers: 50,
  transferReadings: 100,
  readings: 20_000,
  history: 1000,
  ledgers: 100,
  transactions: 100_000,
  records: 10_000,
  documentPaths: 100,
} as const;
