import { HttpError, httpErrorOf } from '../../../http/errors';
import { AlreadyImportedError, DomainError } from '../../../lib/errors';
import { nonFieldErrorsBody, v1AccountErrorBody, v2ErrorBody } from '../../../http/middleware/errorShape';

const issues = [
  { detail: 'Unknown field.', code: 'unknown_field', attr: 'extra' },
  { detail: 'Not a valid date.', code: 'invalid_date', attr: 'notes.0.created_at' },
];

describe('the platform error shapes', () => {
  it('gives every v2 400 code, detail and errors, keeping the keys of the spec', () => {
    expect(v2ErrorBody(new HttpError('parse_error', 'No body.'))).toEqual({ code: 'parse_error', detail: 'No body.', errors: [] });
    expect(v2ErrorBody(new HttpError('validation_error', 'Bad.', { errors: issues }))).toEqual({ code: 'validation_error', detail: 'Bad.', errors: issues });
    expect(v2ErrorBody(httpErrorOf(new DomainError('import_process_failed_validation', 'Invalid.', { domain: 'import_process' })))).toEqual({
      code: 'import_process_failed_validation',
      detail: 'Invalid.',
      domain: 'import_process',
      errors: [],
    });
    expect(v2ErrorBody(httpErrorOf(new AlreadyImportedError('A-1')))).toEqual({
      non_field_errors: { detail: expect.any(String), code: 'account_import_process_already_imported' },
      account_id: 'A-1',
      code: 'account_import_process_already_imported',
      detail: expect.any(String),
      errors: [],
    });
  });

  it('gives a top-up 400 one non_field_errors message per issue, or the detail', () => {
    expect(nonFieldErrorsBody(new HttpError('validation_error', 'Bad.', { errors: issues }))).toEqual({
      non_field_errors: ['extra: Unknown field.', 'notes.0.created_at: Not a valid date.'],
      code: 'validation_error',
      errors: issues,
    });
    expect(nonFieldErrorsBody(new HttpError('parse_error', 'Malformed JSON.'))).toEqual({ non_field_errors: ['Malformed JSON.'], code: 'parse_error' });
  });

  it("gives the v1 account operations' already-imported 400 the platform's AccountAlreadyImportedResponse, every other 400 NonFieldErrors", () => {
    expect(v1AccountErrorBody(httpErrorOf(new AlreadyImportedError('A-1', 'EXT-1')))).toEqual({
      external_account_number: 'EXT-1',
      kraken_account_number: 'A-1',
      non_field_errors: [expect.any(String)],
      code: 'account_import_process_already_imported',
    });
    expect(v1AccountErrorBody(new HttpError('account_failed_validation', 'Bad.', { errors: issues }))).toEqual({
      non_field_errors: ['extra: Unknown field.', 'notes.0.created_at: Not a valid date.'],
      code: 'account_failed_validation',
      errors: issues,
    });
    expect(v1AccountErrorBody(new HttpError('import_process_does_not_exist', 'Stage it first.'))).toEqual({ non_field_errors: ['Stage it first.'], code: 'import_process_does_not_exist' });
  });

  it('leaves every other status in the service shape', () => {
    for (const e of [new HttpError('not_found', 'Gone.'), new HttpError('payload_too_large', 'Big.'), new HttpError('throttled', 'Wait.')]) {
      expect(v2ErrorBody(e)).toEqual({ detail: e.detail, code: e.code });
      expect(nonFieldErrorsBody(e)).toEqual({ detail: e.detail, code: e.code });
      expect(v1AccountErrorBody(e)).toEqual({ detail: e.detail, code: e.code });
    }
  });
});
