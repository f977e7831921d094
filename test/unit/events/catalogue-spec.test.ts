import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE, entryKey, findEntry } from '../../../events/catalogue';
import { parseEventsCatalogue, type FieldType, type Fields } from './specCatalogue';

const SPEC_PATH = path.join(__dirname, '../../../docs/spec/events-catalogue.md');
const specEntries = parseEventsCatalogue(readFileSync(SPEC_PATH, 'utf8'));

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean;
}

/** The catalogue schema in the parser's terms: field names, types and optionality, nothing else. */
function shapeOf(schema: JsonSchema): FieldType {
  switch (schema.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { kind: schema.type };
    case 'array':
      return { kind: 'array', items: shapeOf(schema.items ?? {}) };
    case 'object': {
      if (!schema.properties) return { kind: 'free_object' };
      const fields: Fields = {};
      for (const [name, property] of Object.entries(schema.properties)) {
        fields[name] = { type: shapeOf(property), optional: !(schema.required ?? []).includes(name) };
      }
      return { kind: 'object', fields };
    }
    default:
      throw new Error(`unexpected schema type ${String(schema.type)}`);
  }
}

/** Every nested object schema: the spec's objects are closed, only `obj` is free-form. */
function objectSchemas(schema: JsonSchema): JsonSchema[] {
  const nested = [
    ...Object.values(schema.properties ?? {}).flatMap(objectSchemas),
    ...(schema.items ? objectSchemas(schema.items) : []),
  ];
  return schema.type === 'object' && schema.properties ? [schema, ...nested] : nested;
}

describe('the events catalogue matches docs/spec/events-catalogue.md', () => {
  it('reads the expanded shorthand entries of the spec as their own type-versions', () => {
    const keys = new Set(specEntries.map((e) => entryKey(e.type, e.version)));
    // one of each shorthand form: ".removed", "...-suffix", cumulative "v3 adds", "the accepted fields
    // without ...", "as requested-v2 with ...", the eleven dispute events and the cut-off entry
    for (const key of [
      'account_property_effective_period_metadata.removed-v1',
      'lifecycle.leave-supplier.supply-point-journey-await-pre-termination-flow-step.initiated-v1',
      'lifecycle.leave-supplier.await-pre-termination-flow-step.initiated-v1',
      'billing.billing_document_representation.dispatched-v3',
      'deposit_agreement.instalment_returned-v1',
      'lifecycle.leave-supplier.updated-v3',
      'meter_data_quality.resolution_cancelled-v2',
      'meterpoint.gas.disputed_closing_reading.started.other_supplier-v1',
      'meterpoint.gas.disputed_opening_reading.alternative_proposed.other_supplier-v1',
      'meterpoint.gas.disputed_opening_reading.queried.by_us-v1',
      'lifecycle.support-site.sale-1.0.0',
    ]) {
      expect(keys).toContain(key);
    }
    expect(specEntries.filter((e) => e.type.includes('.disputed_')).length).toBe(12);
  });

  it('lists every type-version of the spec in CATALOGUE and nothing else', () => {
    const specKeys = specEntries.map((e) => entryKey(e.type, e.version)).sort();
    const catalogueKeys = CATALOGUE.map((e) => entryKey(e.type, e.version)).sort();
    expect(new Set(specKeys).size).toBe(specKeys.length);
    expect(catalogueKeys).toEqual(specKeys);
  });

  it.each(specEntries.map((e) => [entryKey(e.type, e.version), e] as const))(
    '%s has the fields, types and optionality the spec lists',
    (_key, spec) => {
      const entry = findEntry(spec.type, spec.version);
      expect(entry).toBeDefined();
      expect(shapeOf(entry!.schema as JsonSchema)).toEqual({ kind: 'object', fields: spec.fields });
      expect(entry!.partial ?? false).toBe(spec.partial);
    },
  );

  it('closes every object except free-form obj fields and the cut-off entry', () => {
    for (const entry of CATALOGUE) {
      const [payload, ...nested] = objectSchemas(entry.schema as JsonSchema);
      expect(payload.additionalProperties).toBe(entry.partial ? true : false);
      for (const schema of nested) expect(schema.additionalProperties).toBe(false);
    }
  });

  it('records the cut-off dispute entry with the DisputedReading fields up to criteria, marked partial', () => {
    const entry = findEntry('meterpoint.gas.disputed_opening_reading.queried.by_us', 'v1');
    const names = Object.keys((entry?.schema as JsonSchema).properties ?? {});
    expect(entry?.partial).toBe(true);
    expect(names[names.length - 1]).toBe('criteria');
    expect(names).toHaveLength(20);
    expect(CATALOGUE.filter((e) => e.partial)).toHaveLength(1);
  });
});
