/**
 * The OTLP/HTTP exporters, loaded when the first export runs: only a gateway given an OTLP
 * endpoint (`--otlp-endpoint`) ever loads them (with their protobuf and transformer code), so a
 * gateway without one starts without them. Each stands in for the real exporter in the SDK's
 * reader and processor, which take their exporter when they are made (synchronously), and hands
 * every call to it once loaded. A gateway started by `listenGateway` loads them before it is made,
 * and so gets the real metric exporter, with the temporality its environment asks for. Both packages
 * are optional peer dependencies (docs/architecture.md, "Optional packages").
 */
import { loadOptionalPackage, type OptionalPackage } from '@toolmask/core/errors';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type * as LogExporterModule from '@opentelemetry/exporter-logs-otlp-http';
import type * as MetricExporterModule from '@opentelemetry/exporter-metrics-otlp-http';

/** Optional peer dependencies: installed by those who export over OTLP. */
const METRIC_EXPORTER: OptionalPackage = {
  name: '@opentelemetry/exporter-metrics-otlp-http',
  version: '0.218.0',
};
const LOG_EXPORTER: OptionalPackage = {
  name: '@opentelemetry/exporter-logs-otlp-http',
  version: '0.218.0',
};
const JOB = 'exporting over OTLP (--otlp-endpoint)';

let metricModule: Promise<typeof MetricExporterModule> | undefined;
let logModule: Promise<typeof LogExporterModule> | undefined;
/** The metric exporter's module once loaded: exporters made after that are the real ones. */
let loadedMetricModule: typeof MetricExporterModule | undefined;

const loadMetricModule = () =>
  (metricModule ??= loadOptionalPackage(
    METRIC_EXPORTER,
    JOB,
    () => import('@opentelemetry/exporter-metrics-otlp-http'),
  ).then((module) => (loadedMetricModule = module)));
const loadLogModule = () =>
  (logModule ??= loadOptionalPackage(
    LOG_EXPORTER,
    JOB,
    () => import('@opentelemetry/exporter-logs-otlp-http'),
  ));

/**
 * Loads both exporters now: a gateway given an OTLP endpoint calls it before it listens, so a
 * missing package is said at start (a `MissingPackageError`), not lost in a failed export.
 */
export async function loadOtlpExporters(): Promise<void> {
  await Promise.all([loadMetricModule(), loadLogModule()]);
}

interface Exporter<Batch> {
  export(batch: Batch, done: (result: { code: number; error?: Error }) => void): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** ExportResultCode.FAILED of @opentelemetry/core. */
const EXPORT_FAILED = 1;

function lazyExporter<Batch>(load: () => Promise<Exporter<Batch>>): Exporter<Batch> {
  let loading: Promise<Exporter<Batch>> | undefined;
  const loaded = () => (loading ??= load());
  return {
    export(batch, done) {
      loaded().then(
        (exporter) => exporter.export(batch, done),
        (error: unknown) =>
          done({
            code: EXPORT_FAILED,
            error: error instanceof Error ? error : new Error(String(error)),
          }),
      );
    },
    async forceFlush() {
      if (loading) await (await loading).forceFlush();
    },
    async shutdown() {
      if (loading) await (await loading).shutdown();
    },
  };
}

/**
 * An OTLP/HTTP metric exporter to `url`: the real one when its package is loaded already (as
 * `listenGateway` does before it builds the gateway), so it reads its own environment, the
 * temporality preference (`OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`) included, as the
 * reader asks it when made; otherwise one loaded on its first export, with the reader's defaults.
 */
export function lazyOtlpMetricExporter(url: string): PushMetricExporter {
  if (loadedMetricModule) return new loadedMetricModule.OTLPMetricExporter({ url });
  return lazyExporter(async () => {
    const { OTLPMetricExporter } = await loadMetricModule();
    return new OTLPMetricExporter({ url });
  }) as PushMetricExporter;
}

/** An OTLP/HTTP log exporter to `url`, loaded on its first export. */
export function lazyOtlpLogExporter(url: string): LogRecordExporter {
  return lazyExporter(async () => {
    const { OTLPLogExporter } = await loadLogModule();
    return new OTLPLogExporter({ url });
  }) as LogRecordExporter;
}
