import type { TSchema } from '@sinclair/typebox';

// Generates a realistic, deterministic example payload from a payload schema. The value of each
// field comes from its name (an `mpan` looks like an MPAN, a `*_at` like a timestamp), so every
// catalogue entry documents itself without hundreds of hand-written examples; entries that this
// service emits may still pass a hand-written example. Optional fields are included so the
// example shows them.

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
}

const STRING_BY_NAME: ReadonlyArray<[RegExp, string]> = [
  [/email/, 'jo.bloggs@example.com'],
  [/^account_number$|^number$/, 'A-3F9C21B7'],
  [/^mpan$|_mpan$/, '1200023305967'],
  [/^mprn$/, '3205690808'],
  [/postcode/, 'SW1A 1AA'],
  [/building_name/, 'Flat 2'],
  [/building_number|house_name_number/, '12'],
  [/street/, 'High Street'],
  [/locality/, 'Kingsdown'],
  [/town/, 'Bristol'],
  [/county/, 'Avon'],
  [/cohort/, 'SMART'],
  [/mechanism/, 'CR'],
  [/reading_factor/, '1.02264'],
  [/reading$/, '04512'],
  [/_ref$/, 'SHIPPER-01'],
  [/(^|_)at$|^occurred_at$/, '2026-11-21T09:30:00Z'],
  [/(date|_from|_to|^start|^end|_begin|_end|^begin|^valid_|_ssd|_on)$/, '2026-11-21'],
  [/market_name/, 'ELECTRICITY_GB'],
  [/currency/, 'GBP'],
  [/(^|_)status$/, 'ACTIVE'],
  [/code$/, 'STANDARD'],
  [/(^|_)key$/, 'imports/2026/11/21/A-3F9C21B7.json'],
  [/bucket/, 'data-import-archive'],
  [/supplier_mpid|mam|mpid/, 'OCTO'],
  [/supplier$/, 'OCT'],
  [/serial/, 'Z16N123456'],
  [/(relay_)?id$|identifier$/, 'c2d6a0de-7b1d-4c57-9d0e-4f8a2b6c1e11'],
  [/_number$/, 'JSP-000123'],
  [/name$/, 'Standard Variable'],
  [/reason|detail|note|description|comments/, 'Requested by the customer'],
  [/channel/, 'EMAIL'],
  [/type$|subtype/, 'STANDARD'],
];

function stringFor(name: string): string {
  for (const [pattern, value] of STRING_BY_NAME) if (pattern.test(name)) return value;
  return name.replace(/_/g, '-');
}

/** A small positive integer that depends only on the field name, so examples are stable across runs. */
function integerFor(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 9973;
  return (hash % 900) + 100;
}

function valueFor(schema: JsonSchema, name: string): unknown {
  switch (schema.type) {
    case 'string':
      return stringFor(name);
    case 'integer':
      return integerFor(name);
    case 'number':
      return integerFor(name) / 10;
    case 'boolean':
      return !name.startsWith('is_') || name.length % 2 === 0;
    case 'array':
      return [valueFor(schema.items ?? {}, name.replace(/s$/, ''))];
    case 'object':
      if (!schema.properties) return { source: 'migration' }; // free-form `obj`
      return Object.fromEntries(
        Object.entries(schema.properties).map(([field, fieldSchema]) => [field, valueFor(fieldSchema, field)]),
      );
    default:
      return null;
  }
}

export function exampleFor(schema: TSchema): Record<string, unknown> {
  return valueFor(schema as JsonSchema, '') as Record<string, unknown>;
}
