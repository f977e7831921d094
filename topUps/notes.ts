import type { Knex } from 'knex';
import { instantOf } from '../account/dates';
import type { IssueList } from '../account/issues';
import type { TopUpAccount } from './account';
import { NotesRequestSchema, type NotesRequest, type TopUpNote } from './schemas';
import { bodyChecker } from '../http/validation';
import { checkIds } from './validate';
import { hasImportedNoteLike } from '../db/stores/accountTopUps';
import { hasAddedNoteLike, hasNoteWithExternalId, insertNote } from './store';

export type NoteStatus = 'NOTE_CREATION_SUCCESS' | 'NOTE_ALREADY_EXISTS';
export type NoteResult = TopUpNote & { status: NoteStatus };

export const checkNotesBody = bodyChecker<NotesRequest>(NotesRequestSchema, (body, issues: IssueList) => {
  checkIds(body.notes, 'notes', 'external_id', issues, { duplicate: 'duplicate_note_external_ids' });
  body.notes.forEach((n, i) => {
    if ((n.body === undefined || n.body.trim() === '') && (n.document_paths ?? []).length === 0) {
      issues.add('note_body_or_document_path_not_found', `notes.${i}.body`, 'A note needs a body or document paths.');
    }
    if (n.unpin_at !== undefined && n.created_at !== undefined && instantOf(n.unpin_at) < instantOf(n.created_at)) {
      issues.add('note_unpin_at_earlier_than_creation_date', `notes.${i}.unpin_at`, 'unpin_at is before created_at.');
    }
  });
});

export const notePaths = (req: NotesRequest) =>
  req.notes.flatMap((n, i) => (n.document_paths ?? []).map((d, k) => ({ attr: `notes.${i}.document_paths.${k}.document_path`, path: d.document_path })));

/**
 * Adds the notes the account does not have yet. As the platform: a note exists already when one
 * with the same body (and the same created_at, when given) is on the account — imported or added
 * here; a note with an `external_id` is the same note as the one with that id. No catalogue event
 * reports a note, so none is published.
 */
export async function addNotes(trx: Knex, account: TopUpAccount, req: NotesRequest, now: Date): Promise<NoteResult[]> {
  const results: NoteResult[] = [];
  for (const n of req.notes) {
    const body = n.body ?? '';
    const paths = (n.document_paths ?? []).map((d) => d.document_path);
    let exists: boolean;
    if (n.external_id !== undefined) {
      exists = await hasNoteWithExternalId(trx, account.id, n.external_id);
    } else {
      const createdAt = n.created_at !== undefined ? new Date(instantOf(n.created_at)) : undefined;
      // A note of documents only is told apart by its documents.
      // Imported notes keep their documents in another table: a documents-only note is compared with added ones only.
      exists = (await hasAddedNoteLike(trx, account.id, body, createdAt, body === '' ? paths : undefined)) || (body !== '' && (await hasImportedNoteLike(trx, account.id, body, createdAt)));
    }
    if (!exists) {
      await insertNote(trx, {
        account_id: account.id,
        external_id: n.external_id ?? null,
        body,
        created_at: n.created_at ? new Date(instantOf(n.created_at)) : now,
        created_at_given: n.created_at !== undefined,
        document_paths: JSON.stringify(paths),
        is_pinned: n.is_pinned ?? false,
        is_archived: n.is_archived ?? false,
        unpin_at: n.unpin_at ? new Date(instantOf(n.unpin_at)) : null,
      });
    }
    results.push({ ...n, status: exists ? 'NOTE_ALREADY_EXISTS' : 'NOTE_CREATION_SUCCESS' });
  }
  return results;
}
