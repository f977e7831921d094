import { Type, type TProperties, type TSchema } from '@sinclair/typebox';

// The spec's field types (Conventions 2), one constructor each so catalogue files read like the spec.
export const str = () => Type.String();
export const int = () => Type.Integer();
export const num = () => Type.Number();
export const bool = () => Type.Boolean();
/** `obj`: a free-form object; the catalogue does not constrain its keys, so it is the one open object. */
export const obj = () => Type.Record(Type.String(), Type.Unknown());
/** `[T]` */
export const arr = <T extends TSchema>(item: T) => Type.Array(item);
/** A field name ending in `?`. */
export const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
/** A nested object of a shared type: closed like every payload, so a typo in a field name is caught. */
export const closed = <P extends TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });
