/** Which Responses API requests the gateway masks, and where each goes. */
import { describe, expect, it } from 'vitest';
import { matchModelRoute } from '../model-routes.js';
import { upstreamTarget, type UpstreamUrls } from '../../upstream/upstreams.js';
import { DEFAULT_UPSTREAMS } from '../../upstream/upstreams.js';

const upstreams: UpstreamUrls = {
  ...DEFAULT_UPSTREAMS,
  openai: 'https://api.openai.com/v1',
  openaiNamed: { p1: 'http://127.0.0.1:9/other/v1' },
};

describe('the OpenAI Responses routes', () => {
  it('masks POST /v1/responses on the openai upstream, with the prefix or without', () => {
    for (const url of ['/v1/responses', '/openai/v1/responses', '/openai/responses']) {
      const route = matchModelRoute('POST', url);
      expect(route).toMatchObject({
        upstream: 'openai',
        protocol: 'openai-responses',
        action: 'mask',
      });
      expect(upstreamTarget(upstreams, route)).toEqual({
        kind: 'url',
        url: 'https://api.openai.com/v1/responses',
      });
    }
    const named = matchModelRoute('POST', '/openai/~p1/v1/responses');
    expect(named).toMatchObject({
      protocol: 'openai-responses',
      action: 'mask',
      openaiRoute: 'p1',
    });
    expect(upstreamTarget(upstreams, named)).toEqual({
      kind: 'url',
      url: 'http://127.0.0.1:9/other/v1/responses',
    });
  });

  it('forwards the other paths of the API as they are', () => {
    for (const url of [
      '/v1/responses/resp_1',
      '/openai/v1/responses/resp_1/cancel',
      '/openai/v1/responses/resp_1/input_items?limit=5',
      '/v1/responses/compact',
    ]) {
      expect(matchModelRoute('POST', url)).toMatchObject({
        upstream: 'openai',
        protocol: 'openai-responses',
        action: 'forward',
      });
    }
    expect(matchModelRoute('GET', '/v1/responses')).toMatchObject({ action: 'forward' });
    expect(
      upstreamTarget(upstreams, matchModelRoute('GET', '/v1/responses/resp_1/input_items?limit=5')),
    ).toEqual({
      kind: 'url',
      url: 'https://api.openai.com/v1/responses/resp_1/input_items?limit=5',
    });
  });

  it('leaves the other fronts their paths', () => {
    expect(matchModelRoute('POST', '/v1/chat/completions')).toMatchObject({
      protocol: 'openai',
      action: 'mask',
    });
    expect(matchModelRoute('POST', '/openai/v1/chat/completions').protocol).toBe('openai');
    expect(matchModelRoute('POST', '/v1/messages').protocol).toBe('anthropic');
    expect(matchModelRoute('POST', '/v1beta/models/m:generateContent').protocol).toBe('gemini-api');
    // A Responses path under another API's prefix is that API's.
    expect(matchModelRoute('POST', '/anthropic/v1/responses').protocol).toBe('anthropic');
    expect(matchModelRoute('GET', '/v1/responsesx').upstream).toBe('gemini');
  });
});
