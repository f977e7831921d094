import type { IssueList } from '../account/issues';

/** Items whose identifier is missing (`missing`) or repeated in the request (`duplicate`). */
export function checkIds<T>(items: T[], list: string, field: keyof T & string, issues: IssueList, codes: { missing?: string; duplicate: string }): void {
  const seen = new Set<unknown>();
  items.forEach((item, i) => {
    const id = item[field];
    if (id === undefined) {
      if (codes.missing) issues.add(codes.missing, `${list}.${i}.${field}`, `Every item needs a ${field}.`);
    } else if (seen.has(id)) issues.add(codes.duplicate, `${list}.${i}.${field}`, `${field} ${String(id)} is given twice.`);
    else seen.add(id);
  });
}
