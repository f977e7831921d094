/** The error/warning item of the API: `attr` is a dot path into the Account (or `non_field_errors`). */
export interface Issue {
  detail: string;
  code: string;
  attr: string;
}

export const NON_FIELD_ERRORS = 'non_field_errors';

/** At most this many errors are reported; the rest are summarised by one `too_many_errors`. */
export const MAX_REPORTED_ERRORS = 200;

/** Dot path from parts: `path('customers', 0, 'email')` → `customers.0.email`. */
export function path(...parts: (string | number)[]): string {
  return parts.join('.');
}

/**
 * Collects issues up to a bound. Once full, `add` only counts, so a hostile payload costs one
 * counter increment per extra error instead of an object.
 */
export class IssueList {
  readonly items: Issue[] = [];
  dropped = 0;

  constructor(private readonly limit = MAX_REPORTED_ERRORS) {}

  get full(): boolean {
    return this.items.length >= this.limit;
  }

  add(code: string, attr: string, detail: string): void {
    if (this.items.length >= this.limit) {
      this.dropped++;
      return;
    }
    this.items.push({ detail, code, attr });
  }

  /** The reported items: the first `limit`, then one `too_many_errors` when some were dropped. */
  result(): Issue[] {
    if (this.dropped === 0) return this.items;
    return [
      ...this.items,
      {
        detail: `Only the first ${this.limit} errors are reported; the payload has more.`,
        code: 'too_many_errors',
        attr: NON_FIELD_ERRORS,
      },
    ];
  }
}
