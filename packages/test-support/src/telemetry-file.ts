/**
 * Reads gemini-cli-core's telemetry outfile: pretty-printed JSON objects written back to back
 * (log records, spans and metric exports), not one object per line.
 */
import * as fs from 'node:fs';

/** Splits concatenated JSON values (objects or arrays) and parses each one. */
export function parseConcatenatedJson(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0 && start >= 0) {
        values.push(JSON.parse(text.slice(start, i + 1)));
        start = -1;
      }
    }
  }
  return values;
}

export function readTelemetryFile(file: string): unknown[] {
  return fs.existsSync(file) ? parseConcatenatedJson(fs.readFileSync(file, 'utf8')) : [];
}

export interface LogRecordLike {
  attributes: Record<string, unknown>;
  body?: unknown;
  resource?: { attributes?: Record<string, unknown>; _rawAttributes?: unknown };
  instrumentationScope?: { name?: string };
}

/** Log records whose `event.name` attribute is `eventName`. */
export function logRecords(values: readonly unknown[], eventName: string): LogRecordLike[] {
  return values.filter((value): value is LogRecordLike => {
    const attributes = (value as { attributes?: Record<string, unknown> } | null)?.attributes;
    return !!attributes && attributes['event.name'] === eventName;
  });
}

export interface MetricDataPointLike {
  attributes: Record<string, unknown>;
  value: unknown;
}

/** Data points of the metric `name` in the last export that has it. */
export function metricDataPoints(values: readonly unknown[], name: string): MetricDataPointLike[] {
  let found: MetricDataPointLike[] = [];
  for (const value of values) {
    const scopeMetrics = (value as { scopeMetrics?: unknown[] } | null)?.scopeMetrics;
    if (!Array.isArray(scopeMetrics)) continue;
    for (const scope of scopeMetrics as Array<{ metrics?: unknown[] }>) {
      for (const metric of (scope.metrics ?? []) as Array<{
        descriptor?: { name?: string };
        dataPoints?: MetricDataPointLike[];
      }>) {
        if (metric.descriptor?.name === name && metric.dataPoints) found = metric.dataPoints;
      }
    }
  }
  return found;
}
