import fs from 'node:fs';
import path from 'node:path';
import { describePlatform, PLATFORM_DOCUMENT } from '../../../scripts/platformFields';
import { nextMigration } from '../../../scripts/platformMigration';

/**
 * Whether the committed description (account/platformAccount.json) is the one `npm run
 * platform:describe` derives from the platform's document. The document is not part of the
 * repository: where it is (data/platform/, or PLATFORM_OPENAPI_DOCUMENT) the check runs; where it
 * is not, the check is skipped, and jest counts it as skipped.
 */
const DESCRIPTION = path.join(__dirname, '..', '..', '..', 'account', 'platformAccount.json');
const present = fs.existsSync(PLATFORM_DOCUMENT);
const withDocument = present ? it : it.skip;

describe('the committed description of the platform\'s Account', () => {
  withDocument(`is the one of the document at ${path.relative(process.cwd(), PLATFORM_DOCUMENT)} (npm run platform:describe)`, () => {
    const document = fs.readFileSync(PLATFORM_DOCUMENT);
    const committed = fs.readFileSync(DESCRIPTION, 'utf8');
    const { text } = describePlatform(document);
    // The recorded hash first: "another document" reads better than a diff of 642 paths.
    expect((JSON.parse(committed) as { document: { sha256: string } }).document.sha256).toBe((JSON.parse(text) as { document: { sha256: string } }).document.sha256);
    expect(committed).toBe(text);
  });

  it('records the sha256 of the document it was derived from', () => {
    expect((JSON.parse(fs.readFileSync(DESCRIPTION, 'utf8')) as { document?: { sha256?: string } }).document?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('needs no migration: the platform migrations (0020, 0022) hold its storage (npm run platform:migration)', () => {
    expect(nextMigration()).toEqual({ added: {}, tables: [], gone: [] });
  });
});
