import { expect, it } from 'vitest';
import { breaksNotFromMasking } from './net-billing-run.js';

it('names a request that re-billed its prompt without masking anything new, and only it', () => {
  const requests = [
    { prompt: 100, read: 0, masked: 0 },
    { prompt: 150, read: 100, masked: 0 },
    // A masking request may read less: its own break.
    { prompt: 120, read: 40, masked: 2 },
    { prompt: 170, read: 120, masked: 2 },
    // Nothing new masked, yet only part of the prompt before it was read.
    { prompt: 220, read: 90, masked: 2 },
  ];
  expect(breaksNotFromMasking(requests)).toEqual([{ index: 4, read: 90, previousPrompt: 170 }]);
  expect(breaksNotFromMasking(requests.slice(0, 4))).toEqual([]);
});
