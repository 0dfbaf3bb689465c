/** `toolmask gateway --anthropic-upstream URL`: the Anthropic Messages API's upstream. */
import { describe, expect, it } from 'vitest';
import { upstreamsFrom, type GatewayCommandOptions } from './gateway-options.js';

const options = (extra: Partial<GatewayCommandOptions>): GatewayCommandOptions => ({
  host: '127.0.0.1',
  port: 0,
  maxBodyMb: 64,
  retentionDays: 30,
  ...extra,
});

describe('--anthropic-upstream', () => {
  it('sets the Anthropic upstream, and only when given (the gateway has a default)', () => {
    expect(
      upstreamsFrom(options({ anthropicUpstream: 'https://proxy.example/anthropic' })),
    ).toEqual({ anthropic: 'https://proxy.example/anthropic' });
    expect(upstreamsFrom(options({}))).toEqual({});
  });

  it('refuses what is not an http(s) URL as bad usage', () => {
    expect(() => upstreamsFrom(options({ anthropicUpstream: 'api.anthropic.com' }))).toThrow(
      /--anthropic-upstream "api.anthropic.com" is not a URL/,
    );
    expect(() => upstreamsFrom(options({ anthropicUpstream: 'ftp://host' }))).toThrow(
      expect.objectContaining({ code: 'BAD_USAGE' }),
    );
  });
});
