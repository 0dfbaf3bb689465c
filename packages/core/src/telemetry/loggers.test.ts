import { logs } from '@opentelemetry/api-logs';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import { afterEach, describe, expect, it } from 'vitest';
import { logToolOutputMasking } from './loggers.js';
import { EVENT_TOOL_OUTPUT_MASKING, ToolOutputMaskingEvent } from './toolOutputMaskingEvent.js';

const fields = {
  tokens_before: 90_000,
  tokens_after: 40_000,
  masked_count: 7,
  total_prunable_tokens: 52_000,
  failed_count: 1,
  bytes_offloaded: 123_456,
  duration_ms: 3.5,
  trigger: 'threshold',
  failure_codes: 'ENOSPC',
  superseded_count: 2,
};

describe('logToolOutputMasking through a real OpenTelemetry SDK', () => {
  afterEach(() => logs.disable());

  it('emits one record on the gemini-cli logger, looked up at emit time', async () => {
    // The provider is registered after the module was imported: the logger must still be found.
    const exporter = new InMemoryLogRecordExporter();
    const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor(exporter)] });
    logs.setGlobalLoggerProvider(provider);

    const event = new ToolOutputMaskingEvent(fields, Date.UTC(2026, 10, 30, 12, 0, 0));
    logToolOutputMasking(event, { 'session.id': 'abc', interactive: true });
    await provider.forceFlush();

    const records = exporter.getFinishedLogRecords();
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record.instrumentationScope.name).toBe('gemini-cli');
    expect(record.body).toBe(
      'Tool output masking: masked 7 tool outputs, saved 50000 tokens, 1 left unmasked after errors.',
    );
    expect(record.attributes).toEqual({
      'session.id': 'abc',
      interactive: true,
      'event.name': EVENT_TOOL_OUTPUT_MASKING,
      'event.timestamp': '2026-11-30T12:00:00.000Z',
      ...fields,
    });
    await provider.shutdown();
  });
});
