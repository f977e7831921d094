import fs from 'node:fs';
import path from 'node:path';

/** The example account (examples/account-dual-fuel.json), read fresh for every caller. */
export function exampleAccount(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const file = path.join(__dirname, '../../examples/account-dual-fuel.json');
  return { ...JSON.parse(fs.readFileSync(file, 'utf8')), ...overrides };
}

/** The example with a new external account number and references no other account uses. */
export function uniqueAccount(external: string): Record<string, unknown> {
  const a = exampleAccount({ external_account_number: external });
  a.references = [{ namespace: 'legacy-crm', value: `CRM-${external}` }];
  return a;
}
