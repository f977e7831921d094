import { maskBankDetails, maskTail } from '../../../account/bankDetails';

describe('bank details masked on read-back (issue 47 item 5)', () => {
  it('keeps the length and the last characters', () => {
    expect(maskTail('089999', 2)).toBe('****99');
    expect(maskTail('66374958', 4)).toBe('****4958');
    expect(maskTail('123', 4)).toBe('***');
    expect(maskTail('', 2)).toBe('');
  });

  it('masks every payment instruction, leaves the rest and the input untouched, and is idempotent', () => {
    const account = {
      billing_name: 'Ann',
      payment_instructions: [
        { reference: 'A', sort_code: '089999', bank_account_number: '66374958' },
        { reference: 'B', type: 'CARD' },
        { reference: 'C', sort_code: null },
      ],
    };
    const copy = JSON.parse(JSON.stringify(account));
    const masked = maskBankDetails(account);
    expect(masked).toEqual({
      billing_name: 'Ann',
      payment_instructions: [{ reference: 'A', sort_code: '****99', bank_account_number: '****4958' }, { reference: 'B', type: 'CARD' }, { reference: 'C', sort_code: null }],
    });
    expect(account).toEqual(copy);
    expect(maskBankDetails(masked)).toEqual(masked);
    expect(maskBankDetails({ billing_name: 'x' })).toEqual({ billing_name: 'x' });
  });
});
