/**
 * What the dashboard needs from the JSON values of a gemini-cli telemetry outfile, kept small:
 *
 * - `gemini_cli.api_response` log records of the main agent (`role` main or absent): one request
 *   each, with the provider's prompt, cached and output tokens, the model and the status;
 * - `gemini_cli.tool_output_masking` log records: toolmask's passes, each counted on the first
 *   main request after it (the pass runs just before the request it masks);
 * - metric exports: toolmask's `gemini_cli.tool_output_masking.*` data points per session
 *   (cumulative points: the latest per process and attribute set; delta points: summed).
 *
 * They fold into the gateway's per-request `UsageRecord`s, so the dashboard shows both the same
 * way. In-process, a masked output stays masked in the history, so the tokens kept out of a
 * request are those saved by every pass of the session up to it.
 */
import { isPlainObject } from '@toolmask/core/utils';
import type { ClientKind, UsageQuery, UsageRecord } from '@toolmask/gateway';

const API_RESPONSE = 'gemini_cli.api_response';
const MASKING_EVENT = 'gemini_cli.tool_output_masking';
const MASKING_METRIC_PREFIX = 'gemini_cli.tool_output_masking.';
const HISTOGRAM_PASSES = ' (passes)';
/** OpenTelemetry JS: AggregationTemporality.DELTA. */
const DELTA = 0;

interface RequestFact {
  at: number;
  model: string;
  status: number;
  promptTokens?: number;
  cachedTokens?: number;
  outputTokens?: number;
}

interface PassFact {
  at: number;
  masked: number;
  saved: number;
  failed: number;
  bytes: number;
  trigger: string;
  durationMs: number;
}

interface SessionFacts {
  client: ClientKind;
  requests: RequestFact[];
  passes: PassFact[];
}

type Json = Record<string, unknown>;

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Epoch ms of a record: its `event.timestamp`, else its `hrTime`. */
function timeOf(record: Json, attributes: Json): number {
  const stamp = Date.parse(String(attributes['event.timestamp'] ?? ''));
  if (Number.isFinite(stamp)) return stamp;
  const hrTime = record['hrTime'];
  return Array.isArray(hrTime) ? numberOr(hrTime[0], 0) * 1000 + numberOr(hrTime[1], 0) / 1e6 : 0;
}

/** A resource attribute, from the SDK's printed form (`_rawAttributes` pairs) or a plain object. */
function resourceAttribute(record: Json, name: string): unknown {
  const resource = record['resource'];
  if (!isPlainObject(resource)) return undefined;
  const raw = resource['_rawAttributes'];
  if (Array.isArray(raw)) {
    for (const pair of raw) if (Array.isArray(pair) && pair[0] === name) return pair[1];
  }
  return isPlainObject(resource['attributes']) ? resource['attributes'][name] : undefined;
}

function clientOfService(service: unknown): ClientKind {
  if (service === 'gemini-cli') return 'gemini-cli';
  if (service === 'qwen-code') return 'qwen-code';
  return 'other';
}

export class TelemetryFold {
  private readonly sessions = new Map<string, SessionFacts>();
  /** Masking metric points: key → session, metric name and value. */
  private readonly points = new Map<string, { session: string; name: string; value: number }>();

  add(value: unknown): void {
    if (!isPlainObject(value)) return;
    if (Array.isArray(value['scopeMetrics'])) {
      this.addMetrics(value);
      return;
    }
    const attributes = value['attributes'];
    if (!isPlainObject(attributes)) return;
    const session = attributes['session.id'];
    if (typeof session !== 'string' || session === '') return;
    const name = attributes['event.name'];
    if (name === API_RESPONSE) {
      const role = attributes['role'];
      if (role !== undefined && role !== 'main') return;
      this.session(session, value).requests.push({
        at: timeOf(value, attributes),
        model: typeof attributes['model'] === 'string' ? attributes['model'] : '',
        status: numberOr(attributes['status_code'], 200),
        promptTokens: optionalNumber(attributes['input_token_count']),
        cachedTokens: optionalNumber(attributes['cached_content_token_count']),
        outputTokens: optionalNumber(attributes['output_token_count']),
      });
    } else if (name === MASKING_EVENT) {
      this.session(session, value).passes.push({
        at: timeOf(value, attributes),
        masked: numberOr(attributes['masked_count'], 0),
        saved: Math.max(
          0,
          numberOr(attributes['tokens_before'], 0) - numberOr(attributes['tokens_after'], 0),
        ),
        failed: numberOr(attributes['failed_count'], 0),
        bytes: numberOr(attributes['bytes_offloaded'], 0),
        trigger: typeof attributes['trigger'] === 'string' ? attributes['trigger'] : '',
        durationMs: numberOr(attributes['duration_ms'], 0),
      });
    }
  }

  reset(): void {
    this.sessions.clear();
    this.points.clear();
  }

  /** Per-request records of every session, oldest first. */
  records(query: UsageQuery = {}): UsageRecord[] {
    const records: UsageRecord[] = [];
    for (const [id, facts] of this.sessions) {
      if (query.conversationId !== undefined && id !== query.conversationId) continue;
      for (const record of this.foldSession(id, facts)) {
        if (query.sinceMs === undefined || record.at >= query.sinceMs) records.push(record);
      }
    }
    return records.sort((a, b) => a.at - b.at);
  }

  /** The session's masking figures from the metric exports, by metric name. */
  extras(session: string): Record<string, number> | undefined {
    const sums: Record<string, number> = {};
    for (const point of this.points.values()) {
      if (point.session === session) sums[point.name] = (sums[point.name] ?? 0) + point.value;
    }
    return Object.keys(sums).length > 0 ? sums : undefined;
  }

  private session(id: string, record: Json): SessionFacts {
    let facts = this.sessions.get(id);
    if (!facts) {
      facts = {
        client: clientOfService(resourceAttribute(record, 'service.name')),
        requests: [],
        passes: [],
      };
      this.sessions.set(id, facts);
    }
    return facts;
  }

  private foldSession(id: string, facts: SessionFacts): UsageRecord[] {
    const requests = [...facts.requests].sort((a, b) => a.at - b.at);
    const passes = [...facts.passes].sort((a, b) => a.at - b.at);
    const records: UsageRecord[] = [];
    let next = 0;
    let maskedSoFar = 0;
    let savedSoFar = 0;
    for (const request of requests) {
      let newlyMasked = 0;
      let bytesOffloaded = 0;
      let failures = 0;
      let durationMs = 0;
      let trigger = '';
      while (next < passes.length && (passes[next] as PassFact).at <= request.at) {
        const pass = passes[next++] as PassFact;
        newlyMasked += pass.masked;
        savedSoFar += pass.saved;
        bytesOffloaded += pass.bytes;
        failures += pass.failed;
        durationMs += pass.durationMs;
        if (pass.masked > 0) trigger = pass.trigger;
      }
      maskedSoFar += newlyMasked;
      records.push({
        at: request.at,
        conversationId: id,
        client: facts.client,
        front: 'in-process',
        model: request.model,
        status: request.status,
        ...(request.promptTokens !== undefined ? { promptTokens: request.promptTokens } : {}),
        ...(request.cachedTokens !== undefined ? { cachedTokens: request.cachedTokens } : {}),
        ...(request.outputTokens !== undefined ? { outputTokens: request.outputTokens } : {}),
        maskedOutputs: maskedSoFar,
        newlyMasked,
        tokensKeptOut: savedSoFar,
        bytesOffloaded,
        failures,
        ...(trigger ? { trigger } : {}),
        cacheLikelyCold: trigger === 'cold_cache',
        gatewayMs: durationMs,
      });
    }
    return records;
  }

  private addMetrics(exported: Json): void {
    const process = String(resourceAttribute(exported, 'process.pid') ?? '');
    for (const scope of exported['scopeMetrics'] as unknown[]) {
      if (!isPlainObject(scope) || !Array.isArray(scope['metrics'])) continue;
      for (const metric of scope['metrics'] as unknown[]) {
        if (!isPlainObject(metric) || !isPlainObject(metric['descriptor'])) continue;
        const name = metric['descriptor']['name'];
        if (typeof name !== 'string' || !name.startsWith(MASKING_METRIC_PREFIX)) continue;
        const delta = metric['aggregationTemporality'] === DELTA;
        for (const point of Array.isArray(metric['dataPoints']) ? metric['dataPoints'] : []) {
          if (!isPlainObject(point) || !isPlainObject(point['attributes'])) continue;
          const session = point['attributes']['session.id'];
          if (typeof session !== 'string') continue;
          const raw = point['value'];
          const histogram = isPlainObject(raw);
          const value = histogram ? numberOr(raw['count'], 0) : numberOr(raw, 0);
          const shownName = histogram ? `${name}${HISTOGRAM_PASSES}` : name;
          const key = `${process}\u0000${shownName}\u0000${JSON.stringify(point['attributes'])}`;
          const before = this.points.get(key)?.value ?? 0;
          this.points.set(key, { session, name: shownName, value: delta ? before + value : value });
        }
      }
    }
  }
}
