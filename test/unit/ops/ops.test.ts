import { ConfigError, loadConfig } from '../../../lib/config';
import { histogramQuantile, latencyBinMinutes } from '../../../ops/summary';

describe('operations page configuration', () => {
  it('listens on 127.0.0.1:8001 by default, with no token', () => {
    expect(loadConfig({}).ops).toEqual({ bind: { host: '127.0.0.1', port: 8001 }, token: undefined });
  });

  it('reads host:port, an IPv6 literal, or off', () => {
    expect(loadConfig({ OPS_BIND: '127.0.0.1:0' }).ops.bind).toEqual({ host: '127.0.0.1', port: 0 });
    expect(loadConfig({ OPS_BIND: '[::1]:9001' }).ops.bind).toEqual({ host: '::1', port: 9001 });
    expect(loadConfig({ OPS_BIND: 'off' }).ops.bind).toBeNull();
  });

  it('stops on a malformed OPS_BIND, naming it', () => {
    for (const v of ['8001', 'localhost', 'host:99999', 'a b:1']) {
      expect(() => loadConfig({ OPS_BIND: v })).toThrow(expect.objectContaining({ variable: 'OPS_BIND' }));
    }
  });

  it('requires OPS_TOKEN beyond loopback, and a long one', () => {
    expect(() => loadConfig({ OPS_BIND: '0.0.0.0:8001' })).toThrow(ConfigError);
    expect(() => loadConfig({ OPS_BIND: '0.0.0.0:8001' })).toThrow(expect.objectContaining({ variable: 'OPS_TOKEN' }));
    expect(() => loadConfig({ OPS_BIND: '0.0.0.0:8001', OPS_TOKEN: 'short' })).toThrow(expect.objectContaining({ variable: 'OPS_TOKEN' }));
    expect(loadConfig({ OPS_BIND: '10.1.2.3:8001', OPS_TOKEN: 'x'.repeat(16) }).ops).toEqual({ bind: { host: '10.1.2.3', port: 8001 }, token: 'x'.repeat(16) });
  });
});

describe('latency percentiles from a histogram', () => {
  const bounds = [0, 100, 200, 400];

  it('interpolates within the bucket holding the rank', () => {
    // 10 values in [0,100), 10 in [100,200): the median is the top of the first bucket.
    expect(histogramQuantile([10, 10, 0, 0], bounds, 0.5)).toBe(100);
    expect(histogramQuantile([10, 10, 0, 0], bounds, 0.95)).toBe(190);
    expect(histogramQuantile([0, 0, 4, 0], bounds, 0.5)).toBe(300);
  });

  it('answers the lower bound of the open last bucket, and 0 for no values', () => {
    expect(histogramQuantile([0, 0, 0, 3], bounds, 0.95)).toBe(400);
    expect(histogramQuantile([0, 0, 0, 0], bounds, 0.5)).toBe(0);
  });

  it('bins the latency series into about 24 points', () => {
    expect(latencyBinMinutes(1)).toBe(5);
    expect(latencyBinMinutes(6)).toBe(15);
    expect(latencyBinMinutes(24)).toBe(60);
    expect(latencyBinMinutes(72)).toBe(180);
  });
});
