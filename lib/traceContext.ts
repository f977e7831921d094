/**
 * The active trace context, read through `@opentelemetry/api` alone: when tracing is off
 * (lib/tracing.ts started nothing) these are the API's no-op defaults and cost next to nothing.
 */
import { context, propagation, trace, isSpanContextValid, TraceFlags } from '@opentelemetry/api';

/** trace_id, span_id and trace_flags of the active span, for log lines (lib/logger.ts); {} outside a trace. */
export function traceLogFields(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const c = span.spanContext();
  if (!isSpanContextValid(c)) return {};
  return { trace_id: c.traceId, span_id: c.spanId, trace_flags: `0${c.traceFlags.toString(16)}` };
}

/** The trace of the active span (its id, and whether it is sampled: exported), when there is one. */
export function activeTrace(): { id: string; sampled: boolean } | undefined {
  const c = trace.getSpan(context.active())?.spanContext();
  return c && isSpanContextValid(c) ? { id: c.traceId, sampled: (c.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED } : undefined;
}

/** The W3C trace context (`traceparent`, and `tracestate` when there is one) of the active span; {} outside a trace or when tracing is off. */
export function activeTraceContext(): { traceparent?: string; tracestate?: string } {
  const carrier: { traceparent?: string; tracestate?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
