import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { buildOpenApiDocument } from '../../api/openapi';
import { isIsoDate, isIsoDateTime } from '../../account/dates';
import { DECIMAL_RE, TIME_RE } from '../../account/ajv';
import { checkEmail } from '../../account/rules/contacts';
import { FREE_FORM_KEYWORD } from '../../account/freeForm';

/** The service's OpenAPI document as plain JSON. */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>>; components: Record<string, unknown> & { schemas: Record<string, Record<string, unknown>> } };

export const openApiDocument = (): OpenApiDocument => buildOpenApiDocument() as OpenApiDocument;

/**
 * Ajv (JSON Schema 2020-12, strict) holding the whole document as `openapi.json`, with the
 * formats the document names, so any `openapi.json#/...` pointer compiles.
 */
export function documentAjv(doc: OpenApiDocument = openApiDocument()): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addFormat('date', { type: 'string', validate: isIsoDate });
  ajv.addFormat('date-time', { type: 'string', validate: isIsoDateTime });
  ajv.addFormat('date-or-date-time', { type: 'string', validate: (v: string) => isIsoDate(v) || isIsoDateTime(v) });
  ajv.addFormat('decimal', { type: 'string', validate: (v: string) => DECIMAL_RE.test(v) });
  ajv.addFormat('email', { type: 'string', validate: (v: string) => checkEmail(v) !== 'invalid_email' });
  ajv.addFormat('time', { type: 'string', validate: (v: string) => TIME_RE.test(v) });
  ajv.addFormat('uuid', true);
  // The document's own top-level fields are not JSON Schema: declared so strict mode lets the
  // document be added whole, and every `#/components/...` reference resolves as written.
  ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'tags', 'paths', 'components']);
  // The free-form bound of the Account's free-form values (account/freeForm.ts): an extension keyword.
  ajv.addVocabulary([FREE_FORM_KEYWORD]);
  ajv.addSchema(doc, 'openapi.json');
  return ajv;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The validator of one documented JSON response: what a client generated from the document would accept. */
export function responseValidator(ajv: Ajv2020, method: string, path: string, status: number): ValidateFunction {
  return ajv.compile({ $ref: `openapi.json#/${pointer('paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}` });
}
