import { ConfigError } from '../../lib/config';
import { DEFAULT_SAMPLER, DEFAULT_SAMPLER_RATIO, samplerFor, startTracing, tracingSettings } from '../../lib/tracing';

/** Which OTEL_* settings turn tracing on, and the ones this service refuses (docs/tracing.md). */
describe('tracing settings from the OTEL_* variables', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

  it('is off without an exporter endpoint, and then starts nothing', () => {
    expect(tracingSettings('data-import-api', {}).off).toMatch(/no OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(startTracing('data-import-api', {})).toBeNull();
  });

  it('is on with either endpoint variable, unless disabled or the exporter is none', () => {
    expect(tracingSettings('x', endpoint).off).toBeNull();
    expect(tracingSettings('x', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).off).toBeNull();
    expect(tracingSettings('x', { ...endpoint, OTEL_SDK_DISABLED: 'true' }).off).toBe('OTEL_SDK_DISABLED=true');
    expect(tracingSettings('x', { ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).off).toBe('OTEL_TRACES_EXPORTER=none');
    expect(startTracing('x', { ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('names the process by OTEL_SERVICE_NAME, else service.name of OTEL_RESOURCE_ATTRIBUTES, else the default', () => {
    expect(tracingSettings('data-import-worker', endpoint).serviceName).toBe('data-import-worker');
    expect(tracingSettings('data-import-worker', { ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=worker-eu' }).serviceName).toBe('worker-eu');
    expect(tracingSettings('data-import-worker', { ...endpoint, OTEL_SERVICE_NAME: 'imports', OTEL_RESOURCE_ATTRIBUTES: 'service.name=worker-eu' }).serviceName).toBe('imports');
  });

  it('samples a share of the API requests by default and follows the parent elsewhere', () => {
    const s = tracingSettings('x', endpoint);
    expect({ sampler: s.sampler, ratio: s.ratio, protocol: s.protocol }).toEqual({ sampler: DEFAULT_SAMPLER, ratio: DEFAULT_SAMPLER_RATIO, protocol: 'http/protobuf' });
    expect(samplerFor(s).toString()).toBe(`ParentBased{root=TraceIdRatioBased{${DEFAULT_SAMPLER_RATIO}}, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}`);
    expect(samplerFor(tracingSettings('x', { ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' })).toString()).toContain('TraceIdRatioBased{1}');
    expect(samplerFor(tracingSettings('x', { ...endpoint, OTEL_TRACES_SAMPLER: 'always_on' })).toString()).toBe('AlwaysOnSampler');
  });

  it.each([
    ['OTEL_TRACES_SAMPLER', { OTEL_TRACES_SAMPLER: 'sometimes' }],
    ['OTEL_TRACES_SAMPLER_ARG', { OTEL_TRACES_SAMPLER_ARG: '1.5' }],
    ['OTEL_TRACES_SAMPLER_ARG', { OTEL_TRACES_SAMPLER_ARG: 'ten percent' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' }],
    ['OTEL_TRACES_EXPORTER', { OTEL_TRACES_EXPORTER: 'zipkin' }],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }],
  ])('refuses a bad %s naming it', (variable, env) => {
    const run = () => tracingSettings('x', { ...endpoint, ...env });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(expect.objectContaining({ variable }));
  });
});
