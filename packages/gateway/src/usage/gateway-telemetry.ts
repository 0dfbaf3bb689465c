/**
 * The gateway's OpenTelemetry SDK: a meter provider read by the Prometheus exporter (served at
 * `/metrics`, no listener of its own) and, with an OTLP endpoint, pushed there too; a logger
 * provider for the masking events (OTLP only). The OTLP exporters are loaded on their first
 * export (lazy-otlp-exporters.ts): a gateway without an endpoint never loads them. The masking pass reports through core's own
 * functions, with this provider, under the same names as the in-process installation
 * (`gemini_cli.tool_output_masking.*`); the gateway adds what only it knows, the provider's real
 * usage (`toolmask.gateway.*`) and the failures of its stores. Names are documented in
 * docs/telemetry.md.
 *
 * A replica of a team gateway is named (`instance`): the name is the resource's
 * `service.instance.id` (OTLP) and, in the Prometheus exposition, an `instance` label on every
 * series, from the resource through the serializer's resource constant labels, so the masking
 * metrics core records through this meter provider carry it too. Unnamed, the exposition is a
 * person's own gateway's, without that label.
 */
import { describeError } from '@toolmask/core/errors';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValueType, type Attributes, type Meter } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type MetricReader,
} from '@opentelemetry/sdk-metrics';
import type { MaskingResult, ToolOutputMaskingEvent } from '@toolmask/core';
import { logToolOutputMasking, recordMaskingMetrics } from '@toolmask/core/telemetry';
import type { UsageRecord } from '../usage/usage-record.js';
import { lazyOtlpLogExporter, lazyOtlpMetricExporter } from './lazy-otlp-exporters.js';
import { ModelLabels } from './metric-labels.js';
import { recordNet } from './net-figures.js';

export const GATEWAY_METER = 'toolmask-gateway';
export const METRIC_REQUESTS = 'toolmask.gateway.requests';
export const METRIC_PROMPT_TOKENS = 'toolmask.gateway.prompt_tokens';
export const METRIC_CACHED_TOKENS = 'toolmask.gateway.cached_tokens';
export const METRIC_CACHE_WRITE_TOKENS = 'toolmask.gateway.cache_write_tokens';
export const METRIC_OUTPUT_TOKENS = 'toolmask.gateway.output_tokens';
export const METRIC_TOKENS_KEPT_OUT = 'toolmask.gateway.tokens_kept_out';
export const METRIC_NET_SAVED_TOKENS = 'toolmask.gateway.net_saved_tokens';
export const METRIC_ADDED_LATENCY = 'toolmask.gateway.added_latency';
export const METRIC_STORE_FAILURES = 'toolmask.gateway.store_failures';
export const METRIC_BUDGET_REFUSALS = 'toolmask.gateway.owner_budget_refusals';

/** The stores whose failures are counted (`store` label of `toolmask.gateway.store_failures`). */
export type GatewayStoreName = 'conversations' | 'usage' | 'outputs' | 'keys';

export interface GatewayTelemetryOptions {
  serviceVersion: string;
  /** OTLP/HTTP base endpoint (`http://host:4318`); unset: Prometheus only. */
  otlpEndpoint?: string;
  /** Milliseconds between OTLP metric exports. @default 60000 */
  otlpIntervalMs?: number;
  /**
   * This replica's name in a team gateway (`gateway-1`): an `instance` label on every series at
   * `/metrics`, and `service.instance.id` on the resource. Unset or empty: no such label (a
   * person's own gateway).
   */
  instance?: string;
}

export interface GatewayTelemetry {
  /** The masking event of one pass, with the conversation's attributes. */
  logEvent(event: ToolOutputMaskingEvent, attributes: Attributes): void;
  recordPass(
    result: Pick<MaskingResult, 'maskedCount' | 'failures' | 'offloaded' | 'durationMs'>,
    attributes: Attributes,
  ): void;
  recordRequest(record: UsageRecord): void;
  /**
   * One failed call of a store: `operation` is the store's method that failed (`load`,
   * `appendDecisions`, `append`, `save`, `read`, ...), a name from a short fixed list, never an id.
   */
  recordStoreFailure(store: GatewayStoreName, operation: string): void;
  /** One request whose owner's budget (`resource`: a name from a fixed list) was spent. */
  recordBudgetRefusal(resource: string): void;
  /** Serves the Prometheus text exposition. */
  serveMetrics(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The exposition as text (tests, the dashboard). */
  metricsText(): Promise<string>;
  shutdown(): Promise<void>;
}

const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
/** The label naming a replica at `/metrics` (a Prometheus server scraping it: `exported_instance`). */
const INSTANCE_LABEL = 'instance';

export function createGatewayTelemetry(options: GatewayTelemetryOptions): GatewayTelemetry {
  const instance = options.instance || undefined;
  const resource = resourceFromAttributes({
    'service.name': 'toolmask-gateway',
    'service.version': options.serviceVersion,
    ...(instance ? { 'service.instance.id': instance } : {}),
  });
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const readers: MetricReader[] = [prometheus];
  const endpoint = options.otlpEndpoint?.replace(/\/$/, '');
  if (endpoint) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: lazyOtlpMetricExporter(`${endpoint}/v1/metrics`),
        exportIntervalMillis: options.otlpIntervalMs ?? 60_000,
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const loggerProvider = new LoggerProvider({
    resource,
    processors: endpoint
      ? [new BatchLogRecordProcessor(lazyOtlpLogExporter(`${endpoint}/v1/logs`))]
      : [],
  });
  const models = new ModelLabels();
  const instruments = gatewayInstruments(
    meterProvider.getMeter(GATEWAY_METER, options.serviceVersion),
    models,
  );
  const metricsText = exposition(prometheus, resource, instance);
  return {
    logEvent(event, attributes) {
      logToolOutputMasking(
        event,
        attributes as Record<string, string | number | boolean>,
        loggerProvider,
      );
    },
    recordPass(result, attributes) {
      const model = attributes['model'];
      const labelled =
        typeof model === 'string' ? { ...attributes, model: models.label(model) } : attributes;
      recordMaskingMetrics(result, labelled, meterProvider);
    },
    recordRequest: instruments.recordRequest,
    recordStoreFailure: instruments.recordStoreFailure,
    recordBudgetRefusal: instruments.recordBudgetRefusal,
    async serveMetrics(_request, response) {
      try {
        const text = await metricsText();
        response.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE }).end(text);
      } catch (error) {
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`# ${describeError(error)}\n`);
      }
    },
    metricsText,
    async shutdown() {
      await Promise.allSettled([meterProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
}

/** The gateway's own instruments, and how a usage record and a store's failure are counted. */
function gatewayInstruments(
  meter: Meter,
  models: ModelLabels,
): Pick<GatewayTelemetry, 'recordRequest' | 'recordStoreFailure' | 'recordBudgetRefusal'> {
  const counter = (name: string, description: string) =>
    meter.createCounter(name, { description, valueType: ValueType.INT });
  const requests = counter(METRIC_REQUESTS, 'Model requests forwarded by the gateway.');
  const promptTokens = counter(METRIC_PROMPT_TOKENS, 'Prompt tokens the provider reported.');
  const cachedTokens = counter(
    METRIC_CACHED_TOKENS,
    'Prompt tokens the provider reported as cached.',
  );
  const cacheWriteTokens = counter(
    METRIC_CACHE_WRITE_TOKENS,
    'Prompt tokens the provider reported as written to its cache (Anthropic).',
  );
  const outputTokens = counter(METRIC_OUTPUT_TOKENS, 'Output tokens the provider reported.');
  const keptOut = counter(
    METRIC_TOKENS_KEPT_OUT,
    'Estimated tokens masking kept out of the requests as sent (the masked outputs whole, minus their snippets).',
  );
  // Up and down: masking can bill more than no masking (Prometheus: a gauge, no `_total`).
  const netSaved = meter.createUpDownCounter(METRIC_NET_SAVED_TOKENS, {
    description:
      'Prompt tokens billed without masking minus billed, from the provider’s usage (input-token equivalents: reads and writes at the provider’s relative prices); negative when masking billed more.',
    valueType: ValueType.DOUBLE,
  });
  const addedLatency = meter.createHistogram(METRIC_ADDED_LATENCY, {
    description:
      'Milliseconds the gateway added before forwarding a request (parse, masking pass, serialize).',
    unit: 'ms',
    valueType: ValueType.DOUBLE,
    advice: { explicitBucketBoundaries: [0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 1000] },
  });
  const storeFailures = counter(
    METRIC_STORE_FAILURES,
    "Failed calls of the gateway's stores (conversations, usage, outputs, keys).",
  );
  const budgetRefusals = counter(
    METRIC_BUDGET_REFUSALS,
    "Model requests sent on unmasked and unrecorded because their owner's budget was spent (team).",
  );
  return {
    recordRequest(record) {
      const attributes: Attributes = {
        client: record.client,
        front: record.front,
        model: models.label(record.model),
        status: record.status,
      };
      requests.add(1, attributes);
      if (record.promptTokens) promptTokens.add(record.promptTokens, attributes);
      if (record.cachedTokens) cachedTokens.add(record.cachedTokens, attributes);
      // Like the others, counted when not 0: a series appears only where a provider writes.
      if (record.cacheWriteTokens) cacheWriteTokens.add(record.cacheWriteTokens, attributes);
      if (record.outputTokens) outputTokens.add(record.outputTokens, attributes);
      if (record.tokensKeptOut) keptOut.add(Math.round(record.tokensKeptOut), attributes);
      const net = recordNet(record);
      if (net) netSaved.add(net.withoutMasking - net.billed, attributes);
      addedLatency.record(record.gatewayMs, { front: record.front });
    },
    recordStoreFailure(store, operation) {
      storeFailures.add(1, { store, operation });
    },
    recordBudgetRefusal(resource) {
      budgetRefusals.add(1, { resource });
    },
  };
}

/** The Prometheus text exposition of what `prometheus` collects, with the replica's label. */
function exposition(
  prometheus: PrometheusExporter,
  resource: Resource,
  instance: string | undefined,
): () => Promise<string> {
  // The exposition's `instance` label: a resource attribute of that name, which the serializer
  // puts on every series (and on target_info) as a constant label. Only the exposition's resource
  // has it: OTLP carries the standard `service.instance.id`.
  const exposedResource = instance
    ? resource.merge(resourceFromAttributes({ [INSTANCE_LABEL]: instance }))
    : resource;
  const serializer = new PrometheusSerializer(
    undefined,
    false,
    instance ? new RegExp(`^${INSTANCE_LABEL}$`) : undefined,
  );
  return async () => {
    const { resourceMetrics, errors } = await prometheus.collect();
    if (errors.length > 0) throw new Error(`collecting metrics failed: ${String(errors[0])}`);
    return serializer.serialize({ ...resourceMetrics, resource: exposedResource });
  };
}
