import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { ruleSites } from '../../../account/ruleSites';

const ACCOUNT = path.join(__dirname, '../../../account');

describe('ruleSites: where the rules raise each code, read from their source', () => {
  it('follows an attr through loops, constants, parameters and generators', () => {
    const sites = ruleSites().sites;
    const at = (code: string) => sites.filter((s) => s.code === code).flatMap((s) => s.patterns).sort();
    // A parameter (checkPerson) through its two calls: customers and property administrators.
    expect(at('invalid_email')).toEqual(['customers.*.email', 'supply_addresses.*.property_administrators.*.email']);
    // A loop over a literal list of fields.
    expect(at('invalid_phone_number')).toEqual(['customers.*.landline', 'customers.*.mobile', 'supply_addresses.*.property_administrators.*.landline', 'supply_addresses.*.property_administrators.*.mobile']);
    // A generator of records (meterPoints in walk.ts) and a literal index.
    expect(at('active_gas_meter_with_multiple_transfer_readings')).toEqual(['supply_addresses.*.meter_points.*.meters.*.transfer_readings.*']);
    expect(at('debt_collection_agency_name_required')).toEqual(['debt.agency_name', 'debts.*.agency_name']);
  });

  it('reads the same sites from the build (.js) as from the sources', () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rule-sites-'));
    try {
      fs.mkdirSync(path.join(work, 'rules'));
      const files = [...fs.readdirSync(path.join(ACCOUNT, 'rules')).map((f) => `rules/${f}`), 'validator.ts'];
      for (const f of files) {
        const out = ts.transpileModule(fs.readFileSync(path.join(ACCOUNT, f), 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
        });
        fs.writeFileSync(path.join(work, f.replace(/\.ts$/, '.js')), out.outputText);
      }
      const strip = (r: ReturnType<typeof ruleSites>) => ({ sites: r.sites.map(({ code, patterns, anchored }) => ({ code, patterns, anchored })), unresolved: r.unresolved.map((u) => u.code) });
      const built = strip(ruleSites(work, '.js'));
      expect(built.sites.length).toBeGreaterThanOrEqual(140);
      expect(built).toEqual(strip(ruleSites()));
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
