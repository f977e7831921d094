import { Type, type Static, type TSchema, type TProperties } from '@sinclair/typebox';
import { TransactionSchema } from '../account/schema';

/**
 * Request bodies of the post-import top-ups, from the platform's documents (Transactions,
 * AccountNote, HistoricalStatements). Plain JSON Schema data: compiled once (http/validation.ts bodyChecker)
 * and placed in the OpenAPI document as they are. Decisions where the platform is silent:
 * - `external_account_number` is required (the deprecated `account_number` is not accepted);
 * - a transaction is the Account's transaction (account/schema.ts TransactionSchema: the platform's
 *   EnergyTransaction, line_items, tax_items, product_code… included; each optional, as there), its
 *   fields' schemas taken from there rather than written again, so the two cannot drift: what an
 *   import takes in current_statement_transactions[], a top-up takes, and the account reads it back;
 * - but its `amount` is a positive number or decimal string (the type gives the direction), as
 *   the platform sends numbers here, and its `type` is TOP_UP_TRANSACTION_TYPES (the same five).
 */
const closed = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const arr = <T extends TSchema>(items: T, maxItems: number) => Type.Array(items, { minItems: 1, maxItems });
const Text = (maxLength = 255) => Type.String({ maxLength });
const Code = (maxLength = 255) => Type.String({ minLength: 1, maxLength });
const DateStr = () => Type.String({ format: 'date' });
const DateTimeStr = () => Type.String({ format: 'date-time' });
const Enum = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Opt = Type.Optional;

/** At most this many items per request: one transaction of bounded size. */
export const MAX_ITEMS = 1_000;

const Account = { import_supplier: Code(64), external_account_number: Code(128) };

export const TOP_UP_TRANSACTION_TYPES = ['CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT', 'SUPPLY_CHARGE'] as const;
export type TopUpTransactionType = (typeof TOP_UP_TRANSACTION_TYPES)[number];

// The Account's transaction's properties, not the schema itself: its `$id` is registered once (ajv refuses it twice).
const { amount: _amount, type: _type, ...accountTransaction } = TransactionSchema.properties;

export const TopUpTransactionSchema = closed({
  ...accountTransaction,
  // The platform sends numbers (10.0) and answers strings ('71.00'): both are accepted.
  amount: Type.Unsafe<number | string>({ type: ['number', 'string'], format: 'decimal', maxLength: 24, maximum: 1e12 }),
  type: Enum(TOP_UP_TRANSACTION_TYPES),
});

export const TransactionsRequestSchema = closed({
  ...Account,
  dry_run: Opt(Type.Boolean()),
  transactions: arr(TopUpTransactionSchema, MAX_ITEMS),
});

export const NoteDocumentSchema = closed({ document_path: Code(1024) });

export const TopUpNoteSchema = closed({
  body: Opt(Text(100_000)),
  created_at: Opt(DateTimeStr()),
  document_paths: Opt(Type.Array(NoteDocumentSchema, { maxItems: 50 })),
  external_id: Opt(Code(128)),
  is_archived: Opt(Type.Boolean()),
  is_pinned: Opt(Type.Boolean()),
  unpin_at: Opt(DateTimeStr()),
});

export const NotesRequestSchema = closed({ ...Account, notes: arr(TopUpNoteSchema, MAX_ITEMS) });

export const TopUpStatementSchema = closed({
  statement_id: Code(128),
  bill_period_from_date: DateStr(),
  bill_period_to_date: DateStr(),
  issued_date: Opt(Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date' })),
  number: Opt(Text(128)),
  gross_amount: Opt(Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: -1e12, maximum: 1e12 })),
  statement_path: Opt(Code(1024)),
});

export const HistoricalStatementsRequestSchema = closed({ ...Account, statements: arr(TopUpStatementSchema, MAX_ITEMS) });

/** The hand-written fields typed; the platform's others (account/platformSchema.ts) are not in the static type and are read loosely. */
export type TopUpTransaction = Static<typeof TopUpTransactionSchema> & { reference?: string; display_note?: string; note?: string } & Record<string, unknown>;
export type TransactionsRequest = Omit<Static<typeof TransactionsRequestSchema>, 'transactions'> & { transactions: TopUpTransaction[] };
export type TopUpNote = Static<typeof TopUpNoteSchema>;
export type NotesRequest = Static<typeof NotesRequestSchema>;
export type TopUpStatement = Static<typeof TopUpStatementSchema>;
export type HistoricalStatementsRequest = Static<typeof HistoricalStatementsRequestSchema>;
