/** Which Messages API requests the gateway masks, and where each goes. */
import { describe, expect, it } from 'vitest';
import { matchModelRoute } from '../model-routes.js';
import { DEFAULT_UPSTREAMS, upstreamTarget } from '../../upstream/upstreams.js';

describe('the Anthropic Messages routes', () => {
  it('masks POST /v1/messages, with the prefix or without, the query kept', () => {
    for (const url of ['/v1/messages?beta=true', '/anthropic/v1/messages?beta=true']) {
      const route = matchModelRoute('POST', url);
      expect(route).toMatchObject({
        upstream: 'anthropic',
        protocol: 'anthropic',
        action: 'mask',
        upstreamPath: '/v1/messages?beta=true',
      });
      expect(upstreamTarget(DEFAULT_UPSTREAMS, route)).toEqual({
        kind: 'url',
        url: 'https://api.anthropic.com/v1/messages?beta=true',
      });
    }
  });

  it('forwards count_tokens and every other path of the API as they are', () => {
    for (const url of [
      '/v1/messages/count_tokens?beta=true',
      '/anthropic/v1/messages/count_tokens',
      '/anthropic/v1/models',
      '/anthropic/v1/messages/batches/msgbatch_1/results',
    ]) {
      expect(matchModelRoute('POST', url)).toMatchObject({
        upstream: 'anthropic',
        protocol: 'anthropic',
        action: 'forward',
      });
    }
    expect(matchModelRoute('GET', '/anthropic/v1/messages')).toMatchObject({ action: 'forward' });
    // Unprefixed paths of other APIs keep theirs.
    expect(matchModelRoute('POST', '/v1/chat/completions').upstream).toBe('openai');
    expect(matchModelRoute('GET', '/v1/models').upstream).toBe('gemini');
  });

  it('takes another upstream (a proxy of the person, a test fake), under its own base path', () => {
    const route = matchModelRoute('POST', '/anthropic/v1/messages');
    const upstreams = { ...DEFAULT_UPSTREAMS, anthropic: 'http://127.0.0.1:9/proxy/' };
    expect(upstreamTarget(upstreams, route)).toEqual({
      kind: 'url',
      url: 'http://127.0.0.1:9/proxy/v1/messages',
    });
    expect(upstreamTarget(upstreams, matchModelRoute('POST', '/anthropic/../../admin'))).toEqual({
      kind: 'bad-path',
    });
  });
});
