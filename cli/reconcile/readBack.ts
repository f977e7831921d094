import { errorCode, type ApiClient, type ApiResponse } from '../shared/api';
import { diffAccounts, hiddenBankDifferences, type PathDifference } from './compare';

/** `GET …/account/` of one account (imports/http/importedAccount.ts). */
const pathOf = (supplier: string, external: string) => `/v2/data-import/accounts/${encodeURIComponent(supplier)}/${encodeURIComponent(external)}/account/`;

/** A mismatched account as read back: `revealed` when its bank details came in clear. */
export interface ReadBack {
  account: Record<string, unknown>;
  revealed: boolean;
}

/**
 * Reads a mismatched account back for its paths. Bank details are asked in clear
 * (`?reveal=bank_details`) while the key may: a 403 `permission_denied` says it may not, and the
 * rest of the run reads them masked (docs/bulk-migration.md, "Sign-off"). Null: no account (404).
 */
export function accountReader(
  api: Pick<ApiClient, 'call'>,
  opts: { onRequest: () => void; unexpected: (what: string, res: ApiResponse) => Error },
): (supplier: string, external: string) => Promise<ReadBack | null> {
  let reveal = true;
  return async (supplier, external) => {
    for (;;) {
      const revealed = reveal;
      const target = revealed ? `${pathOf(supplier, external)}?reveal=bank_details` : pathOf(supplier, external);
      opts.onRequest();
      const res = await api.call('GET', target);
      if (revealed && res.status === 403 && errorCode(res.body) === 'permission_denied') {
        reveal = false;
        continue;
      }
      if (res.status === 404) return null;
      if (res.status !== 200) throw opts.unexpected(`GET ${target}`, res);
      return { account: res.body as Record<string, unknown>, revealed };
    }
  };
}

/**
 * The paths where a mismatched account differs from the book's (compare.ts diffAccounts), bank
 * details reported masked either way. Read masked, a difference the masked forms do not show is in
 * the masked characters: every bank detail is listed, marked `within_mask` (hiddenBankDifferences).
 */
export function mismatchPaths(book: unknown, read: ReadBack, limit: number): { paths: PathDifference[]; count: number } {
  const diff = diffAccounts(book, read.account, limit, { revealed: read.revealed });
  return diff.count === 0 && !read.revealed ? hiddenBankDifferences(book, read.account, limit) : diff;
}
