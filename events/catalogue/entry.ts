import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { exampleFor } from './example';

export interface CatalogueEntry {
  /** Dotted event type, e.g. `account.created`. */
  type: string;
  /** Payload version: `v1`, `v2`, `v3`, or `1.0.0` for the one entry that uses it. */
  version: string;
  /** JSON Schema of the payload (the envelope's `data`), with a stable `$id`. */
  schema: TSchema;
  /** True where the spec cuts the entry off: the fields it shows are required, later ones are unknown. */
  partial?: boolean;
  description: string;
  example: unknown;
}

/** A catalogue entry that keeps its literal type, version and schema, so `EventPayloads` can be derived. */
export interface TypedEntry<T extends string, V extends string, P extends TProperties> extends CatalogueEntry {
  type: T;
  version: V;
  schema: TObject<P>;
}

export interface EntryOptions<P extends TProperties> {
  description?: string;
  /** A hand-written example; otherwise one is generated from the schema. */
  example?: Static<TObject<P>>;
  partial?: true;
}

export const SCHEMA_BASE = 'https://schemas.data-import.local/events';

/** The stable `$id` of a payload schema: it names the type and version and nothing else that can change. */
export function schemaId(type: string, version: string): string {
  return `${SCHEMA_BASE}/${type}/${version}.json`;
}

/** `account.created` + `v1` → `account.created-v1`, the spelling the spec lists entries by. */
export function entryKey(type: string, version: string): string {
  return `${type}-${version}`;
}

/**
 * Returns the entry constructor of one spec section; its title becomes part of each description.
 * The payload object is closed (`additionalProperties: false`) except for a partial entry, whose
 * unshown later fields real events do carry, so rejecting unknown fields there would reject them.
 */
export function section(title: string) {
  return function entry<T extends string, V extends string, P extends TProperties>(
    type: T,
    version: V,
    properties: P,
    options: EntryOptions<P> = {},
  ): TypedEntry<T, V, P> {
    const description = options.description ?? `${title}: ${type}, payload ${version}.`;
    const schema = Type.Object(properties, {
      $id: schemaId(type, version),
      title: entryKey(type, version),
      description,
      additionalProperties: options.partial ? true : false,
    });
    return {
      type,
      version,
      schema,
      ...(options.partial ? { partial: true } : {}),
      description,
      example: options.example ?? exampleFor(schema),
    };
  };
}
