import { LocalDocumentStore, resolveDocumentPath, type DocumentStore } from '../account/documents';
import { IssueList } from '../account/issues';
import type { ImportSupplier } from '../suppliers';
import { ValidationError } from '../http/validation';

/**
 * Document paths of a top-up, checked as the import checks them (account/rules/misc.ts,
 * account/validator.ts): inside the supplier's document root (`invalid_document_path`), and present
 * in the file store when the supplier asks for it (`path_does_not_exist_in_file_store`).
 * Throws the request's validation error listing every bad path. Without a `store` the local one
 * (as the import's validator: suppliers/databaseValidator.ts), never none.
 */
export async function checkDocumentPaths(supplier: ImportSupplier, store: DocumentStore = new LocalDocumentStore(), paths: { attr: string; path: string }[]): Promise<void> {
  const issues = new IssueList();
  for (const p of paths) {
    const resolved = resolveDocumentPath(supplier.documentRoot, p.path);
    if (resolved === null) issues.add('invalid_document_path', p.attr, 'The document path must stay inside the document root.');
    else if (supplier.checkDocumentExistence && !(await store.exists(supplier.documentRoot, resolved.relative))) {
      issues.add('path_does_not_exist_in_file_store', p.attr, 'No document at this path in the file store.');
    }
  }
  if (issues.items.length > 0) throw new ValidationError(issues.result());
}
