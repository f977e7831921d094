import { escapeMarkdown } from '../../workflows/markdown';

describe('escapeMarkdown (what the Temporal UI renders of a caller\'s values)', () => {
  it('escapes every ASCII punctuation character and turns line breaks into spaces', () => {
    expect(escapeMarkdown('[pay here](https://evil.example/x)')).toBe('\\[pay here\\]\\(https\\:\\/\\/evil\\.example\\/x\\)');
    expect(escapeMarkdown('![](http://t/p.png)**bold**<img src=x>')).toBe('\\!\\[\\]\\(http\\:\\/\\/t\\/p\\.png\\)\\*\\*bold\\*\\*\\<img src\\=x\\>');
    expect(escapeMarkdown('A-1\n# Title\r\n> quote')).toBe('A\\-1 \\# Title \\> quote');
    expect(escapeMarkdown('LEGACY 100045')).toBe('LEGACY 100045');
  });
});
