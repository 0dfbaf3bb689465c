/**
 * Every error the CLI throws on purpose is core's `ToolmaskError` with its own name and a stable
 * code (docs/architecture.md, "Errors"): the codes below are public and never change.
 */
import { ToolmaskError } from '@toolmask/core/errors';
import { describe, expect, it } from 'vitest';
import { CliError, failure, usageError } from './cli-error.js';
import { ChatRecordingFormatError } from './input/chat-recording.js';
import { InputError } from './input/input-error.js';
import { OpenAiTranscriptError } from './input/openai-transcript.js';
import { GeminiLaunchError } from './launch/gemini-launch.js';
import { parseSettings, SettingsTextError } from './launch/jsonc-settings.js';
import { LaunchError } from './launch/launch-error.js';
import { SetupError } from './launch/permanent-setup.js';
import { QwenLaunchError } from './launch/qwen-launch.js';

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
});
