import { IMPORT_STATUSES, type ImportStatus } from '../../../imports/store';
import { transferStatusOf } from '../../../imports/transferStatus';

describe('the platform transfer status of an import', () => {
  it.each<[ImportStatus, string]>([
    ['PROCESSED', 'COMPLETED'],
    ['PENDING', 'IN_PROGRESS'],
    ['IN_PROGRESS', 'IN_PROGRESS'],
    ['STAGED', 'UNKNOWN'],
    ['ERRORED', 'UNKNOWN'],
    ['CANCELLED', 'UNKNOWN'],
    ['DRY_RUN_SUCCEEDED', 'UNKNOWN'],
    ['DRY_RUN_ERRORED', 'UNKNOWN'],
  ])('of %s is %s', (status, transfer) => {
    expect(transferStatusOf(status)).toBe(transfer);
  });

  it('is given for every import status', () => {
    expect(IMPORT_STATUSES.map(transferStatusOf)).toHaveLength(IMPORT_STATUSES.length);
    expect(new Set(IMPORT_STATUSES)).toEqual(new Set(['STAGED', 'PENDING', 'IN_PROGRESS', 'DRY_RUN_SUCCEEDED', 'DRY_RUN_ERRORED', 'PROCESSED', 'ERRORED', 'CANCELLED']));
  });
});
