/**
 * Every error the CLI throws on purpose is core's `ToolmaskError` with its own name and a stable
 * code (docs/architecture.md, "Errors"): the codes below are public and never change.
 */
import { ToolmaskError } from '@toolmask/core/errors';
import { describe, expect, it } from 'vitest';
import { CliError, failure, usageError } from './cli-error.js';
import { ChatRecordingFormatError } from './input/chat-recording.js';
import { InputError } from './input/input-error.js';
import { JsonLinesError } from './input/json-lines.js';
import { WalError } from './input/opencode-wal.js';
import { OpenAiTranscriptError } from './input/openai-transcript.js';
import { GeminiLaunchError } from './launch/clients/gemini/launch.js';
import { parseSettings, SettingsTextError } from './launch/files/jsonc-settings.js';
import { LaunchError } from './launch/launch-error.js';
import { SetupError } from './launch/setup/setup-files.js';
import { QwenLaunchError } from './launch/clients/qwen/launch.js';
import { parseToml, TomlError } from './launch/files/toml-values.js';
import { scanToml, TomlScanError } from './launch/files/toml-scanner.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe("the CLI's errors", () => {
  it('CliError: BAD_USAGE (exit 2), COMMAND_FAILED (exit 1)', () => {
    const usage = usageError('bad flag');
    expect(usage).toBeInstanceOf(CliError);
    expect(usage).toBeInstanceOf(ToolmaskError);
    expect(usage).toMatchObject({ name: 'CliError', code: 'BAD_USAGE', exitCode: 2 });
    expect(failure('it broke')).toMatchObject({ code: 'COMMAND_FAILED', exitCode: 1 });
  });

  it('InputError: INVALID_INPUT, NOT_A_SESSION', () => {
    const invalid = new InputError('a.json', 'not valid JSON');
    expect(invalid).toBeInstanceOf(ToolmaskError);
    expect(invalid).toMatchObject({
      name: 'InputError',
      code: 'INVALID_INPUT',
      message: 'a.json: not valid JSON',
    });
    expect(new InputError('b.json', 'a log', 'not-a-session').code).toBe('NOT_A_SESSION');
  });

  it('ChatRecordingFormatError: INVALID_CHAT_RECORDING, NOT_A_CHAT_RECORDING', () => {
    const damaged = new ChatRecordingFormatError('line 2 is not valid JSON');
    expect(damaged).toBeInstanceOf(ToolmaskError);
    expect(damaged).toMatchObject({
      name: 'ChatRecordingFormatError',
      code: 'INVALID_CHAT_RECORDING',
    });
    expect(new ChatRecordingFormatError('no', true).code).toBe('NOT_A_CHAT_RECORDING');
  });

  it('OpenAiTranscriptError: INVALID_TRANSCRIPT', () => {
    const error = new OpenAiTranscriptError('message 1: expected an object');
    expect(error).toBeInstanceOf(ToolmaskError);
    expect(error).toMatchObject({ name: 'OpenAiTranscriptError', code: 'INVALID_TRANSCRIPT' });
  });

  it('LaunchError and its subclasses: LAUNCH_REFUSED', () => {
    const settings = thrown(() => parseSettings('{', 'settings.json'));
    expect(settings).toBeInstanceOf(SettingsTextError);
    for (const error of [
      new LaunchError('x'),
      new GeminiLaunchError('x'),
      new QwenLaunchError('x'),
      new SetupError('x'),
      settings,
    ]) {
      expect(error).toBeInstanceOf(LaunchError);
      expect(error).toBeInstanceOf(ToolmaskError);
      expect(error).toMatchObject({ code: 'LAUNCH_REFUSED' });
    }
    expect(new QwenLaunchError('x').name).toBe('QwenLaunchError');
    expect(settings).toMatchObject({ name: 'SettingsTextError' });
  });

  it('the readers of JSON Lines and of a write-ahead log: INVALID_JSON_LINES, INVALID_WAL', () => {
    const lines = new JsonLinesError('line 3 is not valid JSON');
    expect(lines).toBeInstanceOf(ToolmaskError);
    expect(lines).toMatchObject({ name: 'JsonLinesError', code: 'INVALID_JSON_LINES' });
    const wal = new WalError('not a SQLite write-ahead log (wrong magic number)');
    expect(wal).toBeInstanceOf(ToolmaskError);
    expect(wal).toMatchObject({ name: 'WalError', code: 'INVALID_WAL' });
  });

  it('TOML: INVALID_TOML (not TOML 1.0), UNREADABLE_TOML (text setup cannot follow)', () => {
    const invalid = thrown(() => parseToml('a = 1\na = 2\n'));
    expect(invalid).toBeInstanceOf(TomlError);
    expect(invalid).toBeInstanceOf(ToolmaskError);
    expect(invalid).toMatchObject({ name: 'TomlError', code: 'INVALID_TOML' });
    expect((invalid as Error).message).toMatch(/^line 2: /);
    const unreadable = thrown(() => scanToml('name = "open\n'));
    expect(unreadable).toBeInstanceOf(TomlScanError);
    expect(unreadable).toBeInstanceOf(ToolmaskError);
    expect(unreadable).toMatchObject({ name: 'TomlScanError', code: 'UNREADABLE_TOML' });
  });
});
