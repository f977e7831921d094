import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { runMap } from '../../../mapping';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const EXAMPLE = path.join(__dirname, '../../../examples/legacy-extract');

describe('the map report page in headless Chromium', () => {
  let browser: Browser;
  let work: string;
  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: scripts/test.sh installs Debian's chromium package; or set CHROMIUM_PATH`);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'map-page-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('groups the fallout by code and rule, largest first, with the share of accounts and the first source lines', async () => {
    for (const f of fs.readdirSync(path.join(EXAMPLE, 'extract'))) fs.copyFileSync(path.join(EXAMPLE, 'extract', f), path.join(work, f));
    // Two accounts' readings get a code the table lacks; one account's customer a date that is not one.
    const readings = path.join(work, 'READINGS.CSV');
    fs.writeFileSync(readings, fs.readFileSync(readings, 'latin1').replace('5012.5,R', '5012.5,Q').replace('120.0,S', '120.0,Q'), 'latin1');
    const customers = path.join(work, 'CUSTOMERS.CSV');
    fs.writeFileSync(customers, fs.readFileSync(customers, 'latin1').replace('14/03/1981', '14/13/1981'), 'latin1');
    const summary = await runMap({ mapping: path.join(EXAMPLE, 'mapping.yaml'), extracts: work, out: path.join(work, 'book.ndjson') });

    const page = await browser.newPage();
    await page.goto(`file://${summary.report.html}`);
    const rows = await page.$$eval('#groups tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td as HTMLElement).innerText.trim())));
    // The rule of reading_history's reading_type: the last one in the mapping (transfer readings' comes first).
    const readingTypeLine = fs.readFileSync(path.join(EXAMPLE, 'mapping.yaml'), 'utf8').split('\n').reduce((last, l, i) => (l.includes('reading_type:') && l.includes('READ_TYPE') ? i + 1 : last), 0);
    expect(rows).toEqual([
      ['map_code_unmapped', `line ${readingTypeLine}`, expect.stringContaining('reading_type'), '2', '2', '66.7%', 'READINGS.CSV:7\nREADINGS.CSV:9'],
      ['map_value_unconvertible', expect.stringMatching(/^line \d+$/), 'customers.*.date_of_birth', '1', '1', '33.3%', 'CUSTOMERS.CSV:2'],
    ]);
    expect(await page.textContent('#stats')).toContain('quarantined 3');
    // Where each table's rows went: every open account is held, so its rows are quarantined.
    const objects = await page.$$eval('#objects tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td as HTMLElement).innerText.trim())));
    expect(objects).toEqual([
      ['accounts', '4', '3', '0', '3', '0', '0', '1'],
      ['customers', '6', '4', '0', '4', '0', '0', '2'],
      ['meter_points', '5', '4', '0', '4', '0', '0', '1'],
      ['meters', '5', '4', '0', '4', '0', '0', '1'],
      ['registers', '4', '3', '0', '3', '0', '0', '1'],
      ['eacs', '4', '3', '0', '3', '0', '0', '1'],
      ['readings', '9', '9', '0', '9', '0', '0', '0'],
    ]);
    await page.close();
  });
});
