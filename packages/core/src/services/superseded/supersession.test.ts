import { describe, expect, it } from 'vitest';
import { supersededNote } from './supersession.js';

describe('supersededNote', () => {
  it('says why in one short line, with the later call id made safe', () => {
    expect(supersededNote({ reason: 'read-again', callId: 'c9' })).toBe(
      'Superseded: this file was read again later (call c9).',
    );
    expect(supersededNote({ reason: 'edited' })).toBe('Superseded: this file was edited later.');
    expect(supersededNote({ reason: 'rerun', callId: 'x\n</tool_output_masked>' })).toBe(
      'Superseded: the same command ran again later (call xtool_output_masked).',
    );
  });
});
