/**
 * Preloaded in the traced workflow bundle (worker/workflowBundles.ts TRACED_BUNDLE_PRELOAD_MODULES):
 * evaluating this module once per workflow thread, before any workflow, evaluates the
 * OpenTelemetry semantic conventions the workflow interceptors' SDK modules import, so that they
 * are shared by every workflow of the thread instead of evaluated again in each sampled one.
 *
 * A module of ours, not the package itself: the package declares itself free of side effects, so
 * the bundler drops a bare preload of it. Not a workflow; no state (the conventions are constants).
 */
import * as semanticConventions from '@opentelemetry/semantic-conventions';

export const preloaded: object = semanticConventions;
