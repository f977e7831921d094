/** An API's count of eager starts by outcome (API_EAGER_START, `data_import_eager_starts_total`), read from its /metrics text. */
export function eagerStartsIn(metricsText: string): { eager: number; fallback: number } {
  const n = (outcome: string) => Number(new RegExp(`^data_import_eager_starts_total\\{[^}]*outcome="${outcome}"[^}]*\\} (\\d+)`, 'm').exec(metricsText)?.[1] ?? 0);
  return { eager: n('eager'), fallback: n('fallback') };
}
