import { createMetrics, registerDatabaseGauge, registerDatabaseGauges } from '../../../lib/metrics';

/** The gauges read from the database when scraped (lib/metrics.ts registerDatabaseGauge), with a read that stands in for the query. */

const valuesOf = async (metrics: ReturnType<typeof createMetrics>, name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values.map((v) => [v.labels, v.value]);

describe('registerDatabaseGauge', () => {
  it('a labelled gauge shows the values of the last read, dropping labels that are gone', async () => {
    const metrics = createMetrics('test');
    let counts: Record<string, number> = { QUEUED: 2, SENT: 5 };
    registerDatabaseGauge(metrics, { name: 'test_by_status', help: 'h', label: 'status', read: async () => counts });
    expect(await valuesOf(metrics, 'test_by_status')).toEqual([
      [{ status: 'QUEUED' }, 2],
      [{ status: 'SENT' }, 5],
    ]);
    counts = { SENT: 7 };
    expect(await valuesOf(metrics, 'test_by_status')).toEqual([[{ status: 'SENT' }, 7]]);
  });

  it('a failed read keeps the scrape alive with the last values', async () => {
    const metrics = createMetrics('test');
    let fail = false;
    registerDatabaseGauge(metrics, {
      name: 'test_single',
      help: 'h',
      read: async () => {
        if (fail) throw new Error('database unreachable');
        return 3;
      },
    });
    expect(await valuesOf(metrics, 'test_single')).toEqual([[{}, 3]]);
    fail = true;
    expect(await valuesOf(metrics, 'test_single')).toEqual([[{}, 3]]);
    await expect(metrics.registry.metrics()).resolves.toContain('test_single{component="test"} 3');
  });

  it('the imports and outbox gauges share one read per scrape', async () => {
    const metrics = createMetrics('test');
    const read = jest.fn(async () => ({ importsByStatus: { PROCESSED: 4 }, outboxBacklog: 9, outboxOldestAgeSeconds: 1.5 }));
    registerDatabaseGauges(metrics, read);
    const text = await metrics.registry.metrics();
    expect(text).toContain('data_import_imports{status="PROCESSED",component="test"} 4');
    expect(text).toContain('data_import_outbox_backlog{component="test"} 9');
    expect(text).toContain('data_import_outbox_oldest_age_seconds{component="test"} 1.5');
    expect(read).toHaveBeenCalledTimes(1);
  });
});
