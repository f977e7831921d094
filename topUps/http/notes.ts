import { nonFieldErrorsBody } from '../../http/middleware/errorShape';
import { operation } from '../../http/operation';
import { NotesRequestSchema, TopUpNoteSchema } from '../schemas';
import { addNotes, checkNotesBody, notePaths } from '../notes';
import { plain } from '../../http/openapi';
import { topUp, type TopUpDeps, topUpOpenApi, withStatus } from './topUp';

/** `POST /v1/data-import/notes/create/`: notes added to an imported account. */
export const notesOperation = operation({
  method: 'post',
  path: '/v1/data-import/notes/create/',
  errors: nonFieldErrorsBody,
  body: true,
  handler: (deps: TopUpDeps) => async (ctx) => {
    const { result } = await topUp(deps, ctx, checkNotesBody, notePaths, (trx, account, b) => addNotes(trx, account, b, new Date()));
    ctx.status = 201;
    ctx.body = result;
  },
  schemas: {
    TopUpNotesRequest: plain(NotesRequestSchema),
    TopUpNotesResult: { type: 'array', items: withStatus(plain(TopUpNoteSchema), ['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS']) },
  },
  openapi: topUpOpenApi('createNotes', 'Add notes to an imported account.', 'TopUpNotesRequest', 'TopUpNotesResult'),
});
