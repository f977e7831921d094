import { validatePayload } from '../../../events/catalogue';
import { uuidFromKey } from '../../../lib/ids';
import { importWorkflowId } from '../../../imports/workflowId';
import { buildEnvelope } from '../../../events/outbox';
import { registrationRequestedEvent } from '../../../registration/events';
import type { MeterPointForRegistration } from '../../../registration/eligibility';

const base = {
  supplyStartDate: '2026-12-01',
  supplierMpid: 'DEMO',
  accountNumber: 'A-0000ABCD',
  importSupplier: 'DEMO_ENERGY',
  externalAccountNumber: 'LEGACY-1',
  at: new Date('2026-11-21T10:00:00Z'),
};
const mp = (supplyType: 'ELECTRICITY' | 'GAS', id: number, identifier: string): MeterPointForRegistration => ({
  id,
  identifier,
  supplyType,
  mpid: 'OTHR',
  supplyStartDate: '2022-11-01',
  etInProgress: false,
  drInProgress: false,
});

describe('registration requested events', () => {
  it('builds the electricity event of the catalogue for an MPAN', () => {
    const e = registrationRequestedEvent({ ...base, meterPoint: mp('ELECTRICITY', 11, '2300111122226') });
    expect(e).toEqual({
      type: 'meterpoint.elec.cos_gain.registration.requested',
      version: 'v1',
      key: 'registration:11',
      orderingKey: importWorkflowId('DEMO_ENERGY', 'LEGACY-1'),
      occurredAt: base.at,
      data: {
        mpan: '2300111122226',
        supply_start_date: '2026-12-01',
        supplier_mpid: 'DEMO',
        account_number: 'A-0000ABCD',
        is_internal_transfer: false,
        is_migrated: true,
        is_export: false,
      },
    });
    expect(validatePayload(e.type, e.version, e.data)).toEqual({ ok: true });
  });

  it('builds the gas event of the catalogue for an MPRN', () => {
    const e = registrationRequestedEvent({ ...base, meterPoint: mp('GAS', 12, '7382190405') });
    expect(e.type).toBe('meterpoint.gas.cos_gain.registration.requested');
    expect(e.data).toEqual({ mprn: '7382190405', supply_start_date: '2026-12-01', supplier_mpid: 'DEMO', account_number: 'A-0000ABCD' });
    expect(validatePayload(e.type, e.version, e.data)).toEqual({ ok: true });
  });

  it('derives the event id from the meter point alone, so a repeat for another date keeps one id', () => {
    const a = buildEnvelope(registrationRequestedEvent({ ...base, meterPoint: mp('GAS', 12, '7382190405') }));
    const b = buildEnvelope(registrationRequestedEvent({ ...base, supplyStartDate: '2026-12-05', meterPoint: mp('GAS', 12, '7382190405') }));
    expect(a.id).toBe(b.id);
    expect(a.id).toBe(uuidFromKey('registration:12'));
  });
});
