import { section } from './entry';
import { str } from './fields';

const entry = section('Data-import events');

// Every import-process event is emitted by this service; the examples show an account import
// (resource_type ACCOUNT) identified by the integrator's external account number.
const processError = { resource_type: str(), external_identifier: str(), error_code: str(), error_detail: str() };
const failedExample = {
  resource_type: 'ACCOUNT',
  external_identifier: 'LEGACY-100045',
  error_code: 'invalid_meter_point',
  error_detail: 'Meter point 1200023305967 is already registered to another account.',
};

export const DATA_IMPORT_EVENTS = [
  entry(
    'data_import.import_process.cancelled',
    'v1',
    { resource_type: str(), external_identifier: str(), expiry_window_end: str() },
    {
      description: 'An import was cancelled by an operator or because its schedule window ended before it ran.',
      example: {
        resource_type: 'ACCOUNT',
        external_identifier: 'LEGACY-100045',
        expiry_window_end: '2026-11-25T09:00:00Z',
      },
    },
  ),
  entry(
    'data_import.import_process.complete',
    'v1',
    { resource_type: str(), external_identifier: str(), identifier: str() },
    {
      description: 'An import committed; identifier is the new platform account number.',
      example: { resource_type: 'ACCOUNT', external_identifier: 'LEGACY-100045', identifier: 'A-3F9C21B7' },
    },
  ),
  entry(
    'data_import.import_process.dry_run_complete',
    'v1',
    { resource_type: str(), external_identifier: str() },
    {
      description: 'A dry-run import passed; nothing was persisted.',
      example: { resource_type: 'ACCOUNT', external_identifier: 'LEGACY-100045' },
    },
  ),
  entry('data_import.import_process.dry_run_error', 'v1', processError, {
    description: 'A dry-run import failed; nothing was persisted.',
    example: failedExample,
  }),
  entry('data_import.import_process.error', 'v1', processError, {
    description: 'An import failed for good (non-retryable failure or retries exhausted).',
    example: failedExample,
  }),
  entry(
    'data_import.import_process.post_import.completed',
    'v1',
    {
      resource_type: str(),
      import_process_resource_type: str(),
      import_process_external_identifier: str(),
      identifier: str(),
    },
    {
      description: 'A supplier-configured follow-up of a committed import finished.',
      example: {
        resource_type: 'POST_IMPORT_TASK',
        import_process_resource_type: 'ACCOUNT',
        import_process_external_identifier: 'LEGACY-100045',
        identifier: 'A-3F9C21B7',
      },
    },
  ),
  entry(
    'data_import.import_process.post_import.error',
    'v1',
    {
      resource_type: str(),
      import_process_resource_type: str(),
      import_process_external_identifier: str(),
      error_code: str(),
      error_detail: str(),
    },
    {
      description: 'A supplier-configured follow-up of a committed import failed; the account stays imported.',
      example: {
        resource_type: 'POST_IMPORT_TASK',
        import_process_resource_type: 'ACCOUNT',
        import_process_external_identifier: 'LEGACY-100045',
        error_code: 'post_import_task_failed',
        error_detail: 'The welcome email could not be scheduled.',
      },
    },
  ),
  entry('data_import.order_process.cancelled', 'v1', { external_order_id: str(), expiry_window_end: str() }),
  entry('data_import.order_process.complete', 'v1', { external_order_id: str(), process_id: str() }),
  entry('data_import.order_process.error', 'v1', { external_order_id: str(), error_code: str(), error_detail: str() }),
] as const;
